#!/usr/bin/env python3
"""Runs one example into a fresh folder and checks the PNG images it wrote.

usage: check_pictures.py [--needs DATA_FILE] OUT_FOLDER IMAGE[:COLSxROWS] ... -- COMMAND ...

COMMAND runs with OUT_FOLDER created empty beforehand (the example is given
the folder in its own arguments). Each IMAGE must then exist in OUT_FOLDER as
a valid 8-bit RGB PNG (signature, chunk CRCs, IHDR, IDAT inflating to exactly
the rows the header promises, IEND). With COLSxROWS it holds a grid of equal
panels: every panel must show something (at least 1% of its pixels not
white) and every panel must differ from the one to its right in at least 1%
of its pixels (a label alone changes far fewer), so a rest frame and a posed
frame drawn side by side cannot be the same picture.

--needs DATA_FILE: skip (exit 77) when DATA_FILE is not under $SINEW_DATA_DIR.
--self-test (alone): checks that the checks refuse identical panels, a blank
panel and a bad CRC.
An example exiting 77 (skipped) is a skip too. Python standard library only.
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77


class CheckError(Exception):
    pass


def fail(message):
    raise CheckError(message)


def read_png(path):
    """Returns (width, height, rows) with rows as bytearrays of RGB bytes."""
    data = open(path, "rb").read()
    if len(data) < 8 or data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG (bad signature)")
    at, header, idat, ended = 8, None, bytearray(), False
    while at < len(data):
        if at + 12 > len(data):
            fail(f"{path}: truncated chunk at byte {at}")
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        if len(body) != length or at + 12 + length > len(data):
            fail(f"{path}: chunk {kind!r} at byte {at} runs past the end")
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            fail(f"{path}: chunk {kind!r} at byte {at} has a bad CRC")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            ended = True
        elif kind == b"tIME":
            fail(f"{path}: has a tIME chunk (images must not depend on when they were made)")
        at += 12 + length
    if header is None or not ended or not idat:
        fail(f"{path}: IHDR, IDAT or IEND missing")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour != 2 or interlace != 0 or width == 0 or height == 0:
        fail(f"{path}: expected 8-bit RGB, not interlaced; IHDR says {header}")
    raw = zlib.decompress(bytes(idat))
    stride = 3 * width
    if len(raw) != height * (stride + 1):
        fail(f"{path}: image data inflates to {len(raw)} bytes, expected {height * (stride + 1)}")
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 3] if x >= 3 else 0
            b = previous[x]
            c = previous[x - 3] if x >= 3 else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif kind != 0:
                fail(f"{path}: row {y} has unknown filter {kind}")
        rows.append(line)
        previous = line
    return width, height, rows


def panel_pixels(rows, x0, y0, w, h):
    return [tuple(rows[y][3 * x:3 * x + 3]) for y in range(y0, y0 + h) for x in range(x0, x0 + w)]


def check_grid(path, width, height, rows, cols, nrows):
    if width % cols or height % nrows:
        fail(f"{path}: {width} x {height} does not split into {cols} x {nrows} panels")
    w, h = width // cols, height // nrows
    for r in range(nrows):
        panels = [panel_pixels(rows, c * w, r * h, w, h) for c in range(cols)]
        for c, pixels in enumerate(panels):
            drawn = sum(1 for p in pixels if p != (255, 255, 255))
            if drawn < 0.01 * len(pixels):
                fail(f"{path}: panel ({c}, {r}) is blank ({drawn} drawn pixels)")
        for c in range(cols - 1):
            differ = sum(1 for p, q in zip(panels[c], panels[c + 1]) if max(abs(i - j) for i, j in zip(p, q)) > 8)
            if differ < 0.01 * w * h:
                fail(f"{path}: panels ({c}, {r}) and ({c + 1}, {r}) differ in only {differ} pixels")
            print(f"{path}: panels ({c}, {r}) and ({c + 1}, {r}) differ in {differ} of {w * h} pixels")


def write_png(path, width, height, pixel, crc_fix=True):
    """A plain 8-bit RGB PNG of pixel(x, y) -> (r, g, b), for the self-test."""
    def chunk(kind, body):
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc if crc_fix else crc ^ 1)
    raw = b"".join(b"\0" + bytes(v for x in range(width) for v in pixel(x, y)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def self_test():
    """The checks catch what they are for: identical panels, blank panels, bad CRCs."""
    import tempfile
    folder = tempfile.mkdtemp()
    try:
        def boxes(left_x, right_x):  # a dark 8 x 8 square in each 20 x 20 panel, at these x in the panel
            def pixel(x, y):
                x0 = left_x if x < 20 else right_x
                inside = x0 is not None and x0 <= x % 20 < x0 + 8 and 6 <= y < 14
                return (0, 0, 0) if inside else (255, 255, 255)
            return pixel
        cases = [("moved.png", True, boxes(2, 10)), ("same.png", False, boxes(2, 2)),
                 ("blank.png", False, boxes(2, None))]
        for name, should_pass, pixel in cases:
            path = os.path.join(folder, name)
            write_png(path, 40, 20, pixel)
            try:
                check_grid(path, *read_png(path), 2, 1)
                passed = True
            except CheckError as e:
                passed = False
                print(f"self-test {name}: refused as expected: {e}")
            if passed != should_pass:
                print(f"FAIL: self-test {name}: the check {'refused' if should_pass else 'accepted'} it")
                return 1
        path = os.path.join(folder, "crc.png")
        write_png(path, 4, 4, lambda x, y: (1, 2, 3), crc_fix=False)
        try:
            read_png(path)
            print("FAIL: self-test: a bad CRC was accepted")
            return 1
        except CheckError as e:
            print(f"self-test crc.png: refused as expected: {e}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("self-test passed")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if "--" not in argv:
        print(__doc__)
        return 2
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    if options[:1] == ["--needs"]:
        needed = os.path.join(os.environ.get("SINEW_DATA_DIR", ""), options[1])
        if not os.path.exists(needed):
            print(f"skipped: {needed} not found (set SINEW_DATA_DIR)")
            return SKIP
        options = options[2:]
    if len(options) < 2 or not command:
        print(__doc__)
        return 2
    folder, images = options[0], options[1:]
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    run = subprocess.run(command)
    if run.returncode == SKIP:
        return SKIP
    if run.returncode != 0:
        fail(f"{' '.join(command)} exited with {run.returncode}")
    for spec in images:
        name, _, grid = spec.partition(":")
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            fail(f"{path} was not written (or is empty)")
        width, height, rows = read_png(path)
        print(f"{path}: valid PNG, {width} x {height}, {os.path.getsize(path)} bytes")
        if grid:
            cols, nrows = (int(v) for v in grid.split("x"))
            check_grid(path, width, height, rows, cols, nrows)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except CheckError as error:
        print("FAIL: " + str(error))
        sys.exit(1)
