#!/usr/bin/env python3
"""Mechanical checks of the API rules in docs/api.md over include/sinew/*.h.

  1. Every exported function, type, enum value and macro carries its module's
     prefix: sinew_<module>_ / SINEW_<MODULE>_ (skin_tools.h is module skin;
     core.h may use any sinew_ / SINEW_ name).
  2. Every *_desc, *_info and *_report struct (and sinew_lattice_refined_mesh)
     starts with `size_t struct_size`.
  3. A range call (one with `first` and `count` parameters) ends with
     `size_t first, size_t count`.
  4. In a range call every non-const `float *` or `uint32_t *` output is
     followed by a stride parameter, or the call's comment says it is packed.
  5. Every public function has a comment just above it.

usage: check_api.py [INCLUDE_DIR]     check the headers (default: include/)
       check_api.py --self-test [DIR] also prove each rule catches a planted violation
Exit status 0 when every check passes; the violations are printed otherwise."""
import os
import re
import sys

MODULE_OF = {'core.h': None, 'skin.h': 'skin', 'skin_tools.h': 'skin', 'soffd.h': 'soffd',
             'lattice.h': 'lattice', 'placement.h': 'placement', 'bbw.h': 'bbw',
             'bbw_pose.h': 'bbw', 'corrective.h': 'corrective'}
GROWING = re.compile(r'^sinew_\w+_(desc|info|report)$|^sinew_lattice_refined_mesh$')


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)


def functions(text):
    """(name, parameter list, comment above or None) of each SINEW_API declaration."""
    code = strip_comments(text)
    out = []
    for m in re.finditer(r'^SINEW_API\s+[^;(]*?\b(\w+)\s*\(([^;]*?)\)\s*;', code, re.S | re.M):
        params = [' '.join(p.split()) for p in m.group(2).split(',')]
        before = text[:m.start()].rstrip()
        comment = None
        if before.endswith('*/'):
            comment = before[before.rfind('/*'):]
        out.append((m.group(1), params, comment))
    return out


def check(headers):
    """headers: {file name: text}. Returns a list of violation strings."""
    bad = []
    for name, text in sorted(headers.items()):
        if name not in MODULE_OF:
            continue
        module = MODULE_OF[name]
        lower = 'sinew_' + (module + '_' if module else '')
        upper = lower.upper()
        code = strip_comments(text)
        # 1. prefixes
        names = [(n, 'function') for n, _, _ in functions(text)]
        names += [(n, 'type') for n in re.findall(r'\}\s*(\w+)\s*;', code)]
        names += [(n, 'type') for n in re.findall(r'typedef\s+(?:struct|enum)\s+(\w+)', code)]
        names += [(n, 'type') for n in re.findall(r'typedef\s+[^;{]*?\(\s*\*\s*(\w+)\s*\)', code)]
        for body in re.findall(r'typedef\s+enum\s+\w*\s*\{(.*?)\}', code, re.S):
            names += [(n, 'enum value') for n in re.findall(r'^\s*(\w+)\s*(?:=|,|$)', body, re.M)]
        names += [(n, 'macro') for n in re.findall(r'^\s*#\s*define\s+(\w+)', code, re.M)]
        for n, kind in names:
            if n == lower[:-1] and kind == 'type':
                continue   # the module's handle type itself: sinew_skin
            prefix = upper if (kind in ('enum value', 'macro')) else lower
            if not n.startswith(prefix):
                bad.append('%s: %s %s lacks the prefix %s' % (name, kind, n, prefix))
        # 2. growing structs
        for m in re.finditer(r'typedef\s+struct\s+(\w+)\s*\{\s*([^;]*);', code):
            if GROWING.match(m.group(1)) and ' '.join(m.group(2).split()) != 'size_t struct_size':
                bad.append('%s: struct %s does not start with size_t struct_size' % (name, m.group(1)))
        # 3-5. functions
        for fn, params, comment in functions(text):
            if comment is None:
                bad.append('%s: %s has no comment above it' % (name, fn))
            pnames = [re.findall(r'(\w+)\s*$', p)[0] if re.findall(r'(\w+)\s*$', p) else '' for p in params]
            if 'first' in pnames and 'count' in pnames:
                if params[-2:] != ['size_t first', 'size_t count']:
                    bad.append('%s: range call %s does not end with size_t first, size_t count' % (name, fn))
                packed = comment is not None and 'packed' in comment
                for i, p in enumerate(params):
                    if re.match(r'(float|uint32_t)\s*\*', p) and not packed:
                        following = pnames[i + 1] if i + 1 < len(pnames) else ''
                        if 'stride' not in following:
                            bad.append('%s: %s output %s has no stride after it and is not documented packed'
                                       % (name, fn, pnames[i]))
    return bad


def load(include_dir):
    d = os.path.join(include_dir, 'sinew')
    return {f: open(os.path.join(d, f)).read() for f in os.listdir(d) if f.endswith('.h')}


def self_test(headers):
    """Each planted violation must be caught, by the rule it breaks."""
    plants = [
        ('prefix', 'soffd.h', 'SINEW_API void sinew_soffd_destroy(', 'SINEW_API void sinew_destroy_soffd(', 'lacks the prefix'),
        ('struct_size', 'bbw.h', 'typedef struct sinew_bbw_info {\n    size_t struct_size;', 'typedef struct sinew_bbw_info {', 'struct_size'),
        ('range order', 'lattice.h', 'float *out, size_t stride,\n                                                 size_t first, size_t count);',
         'size_t first, float *out, size_t stride,\n                                                 size_t count);', 'does not end with'),
        ('stride', 'placement.h', 'float *out, size_t stride,\n                                             size_t first, size_t count);',
         'float *out,\n                                             size_t first, size_t count);', 'no stride'),
        ('comment', 'skin.h', '/* Destroys a skin; NULL is fine. Not thread-safe against calls using it. */\n', '', 'no comment'),
    ]
    failures = 0
    baseline = set(check(headers))
    for rule, f, old, new, needle in plants:
        if old not in headers[f]:
            print('self-test: cannot plant the %s violation: text not found in %s' % (rule, f))
            failures += 1
            continue
        planted = dict(headers)
        planted[f] = headers[f].replace(old, new, 1)
        found = [v for v in check(planted) if needle in v and v not in baseline]
        if not found:
            print('self-test: the planted %s violation in %s was not caught' % (rule, f))
            failures += 1
        else:
            print('self-test: caught %s' % found[0])
    return failures


def main(argv):
    test = '--self-test' in argv
    args = [a for a in argv if a != '--self-test']
    include_dir = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'include')
    headers = load(include_dir)
    bad = check(headers)
    for v in bad:
        print(v)
    failures = len(bad)
    if test:
        failures += self_test(headers)
    print('check_api: %d violation(s)' % len(bad))
    return 1 if failures else 0


sys.exit(main(sys.argv[1:]))
