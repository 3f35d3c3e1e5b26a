#!/usr/bin/env python3
"""Compiles the C snippets of the guides, so they cannot rot.

Every ```c block of README.md and docs/*.md is preceded by a comment that
names what the snippet takes from its surroundings, as a C parameter list:

    <!-- snippet: sinew_context *ctx, const float *joint_world, size_t count -->

Each block becomes the body of a function with those parameters, after
#include <sinew.h> and the standard headers a snippet may use; a line that
is only "..." (text left out) is dropped. The function is compiled with
warnings as errors, so a renamed call or field, a wrong argument count or a
type that no longer fits fails the check and names the guide's line.

usage: check_snippets.py [--cc CC] [--include DIR] [FILE ...]
       check_snippets.py --self-test [--cc CC] [--include DIR]
Default files: README.md and docs/*.md beside this script's folder. Exit 0
when every snippet compiles; the compiler's messages are printed otherwise."""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNIPPET_COMMENT = re.compile(r'^<!--\s*snippet:\s*(.*?)\s*-->\s*$')
PRELUDE = '#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <sinew.h>\n'
FLAGS = ['-std=c11', '-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter',
         '-Wno-unused-variable', '-Wno-unused-but-set-variable', '-Wno-unused-result']


def snippets(path):
    """[(line of the block's first code line, parameters or None, code)]."""
    lines = open(path, encoding='utf-8').read().split('\n')
    found, i = [], 0
    while i < len(lines):
        if lines[i].strip() != '```c':
            i += 1
            continue
        params, k = None, i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0:
            m = SNIPPET_COMMENT.match(lines[k].strip())
            if m:
                params = m.group(1) or 'void'
        end = i + 1
        while end < len(lines) and lines[end].strip() != '```':
            end += 1
        code = [line if line.strip() != '...' else '' for line in lines[i + 1:end]]
        found.append((i + 2, params, '\n'.join(code)))
        i = end + 1
    return found


def translation_unit(path, blocks):
    rel = os.path.relpath(path, ROOT)
    parts = [PRELUDE]
    for n, (line, params, code) in enumerate(blocks):
        parts.append(f'void snippet_{n}({params});\nvoid snippet_{n}({params})\n{{\n#line {line} "{rel}"\n'
                     f'{code}\n}}\n')
    return ''.join(parts)


def check(files, cc, include):
    failed = 0
    for path in files:
        blocks = snippets(path)
        bare = [line for line, params, _ in blocks if params is None]
        for line in bare:
            print(f'{os.path.relpath(path, ROOT)}:{line - 1}: a C block without a "<!-- snippet: ... -->" comment')
            failed += 1
        blocks = [b for b in blocks if b[1] is not None]
        if not blocks:
            continue
        with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
            f.write(translation_unit(path, blocks))
            source = f.name
        try:
            run = subprocess.run([cc] + FLAGS + ['-I', include, source], capture_output=True, text=True)
        finally:
            os.unlink(source)
        if run.returncode != 0:
            print(run.stdout + run.stderr)
            failed += 1
    return failed


def self_test(cc, include):
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, 'good.md')
        with open(good, 'w') as f:
            f.write('<!-- snippet: size_t n -->\n```c\nsinew_skin *skin = NULL;\n...\nsinew_skin_destroy(skin);\n```\n')
        bad_call = os.path.join(d, 'bad_call.md')
        with open(bad_call, 'w') as f:
            f.write('<!-- snippet: void -->\n```c\nsinew_skin_destroy_all(NULL);\n```\n')
        bare = os.path.join(d, 'bare.md')
        with open(bare, 'w') as f:
            f.write('```c\nint x = 0;\n```\n')
        assert check([good], cc, include) == 0, 'a good snippet failed'
        assert check([bad_call], cc, include) == 1, 'a call to a function that does not exist passed'
        assert check([bare], cc, include) == 1, 'a block without its comment passed'
    print('self-test: a good snippet compiles; an unknown call and a block without its comment fail')
    return 0


def main(argv):
    args = argv[1:]
    cc, include, test = os.environ.get('CC', 'cc'), os.path.join(ROOT, 'include'), False
    files = []
    while args:
        a = args.pop(0)
        if a == '--cc':
            cc = args.pop(0)
        elif a == '--include':
            include = args.pop(0)
        elif a == '--self-test':
            test = True
        else:
            files.append(a)
    if test:
        return self_test(cc, include)
    if not files:
        files = [os.path.join(ROOT, 'README.md')] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')))
    failed = check(files, cc, include)
    count = sum(len(snippets(f)) for f in files)
    print(f'{count} C snippets in {len(files)} files, {failed} failing')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
