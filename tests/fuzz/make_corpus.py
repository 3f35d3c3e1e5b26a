#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target: tests/fuzz/corpus/<target>/seed-NN.

Seeds are pseudo-random bytes from a fixed seed, biased towards small values
(the decoders in fuzz.c read small bytes as valid counts, in-range indices,
valid options and the default context), in a few sizes and all four coordinate
modes of the first byte. Run it again after changing a decoder; the output is
deterministic, so an unchanged decoder gives an unchanged corpus.
"""
import os
import random
import sys

TARGETS = ["skin", "skin_tools", "soffd", "lattice", "placement", "bbw", "soffd_driver", "bbw_auto"]
SIZES = [0, 16, 64, 200, 600, 1500]
PER_TARGET = 24


def seed_bytes(rng, size, mode):
    out = bytearray()
    for i in range(size):
        if i == 0:
            out.append(mode | (rng.randrange(8) << 2 if rng.random() < 0.3 else 0))
        elif rng.random() < 0.8:
            out.append(rng.randrange(64))
        else:
            out.append(rng.randrange(256))
    return bytes(out)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for t, target in enumerate(TARGETS):
        folder = os.path.join(root, target)
        os.makedirs(folder, exist_ok=True)
        rng = random.Random(1000 + t)
        for n in range(PER_TARGET):
            size = SIZES[n % len(SIZES)] if n else 0
            data = seed_bytes(rng, size, n % 4 if n % 3 else 0)
            with open(os.path.join(folder, "seed-%02d" % n), "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
