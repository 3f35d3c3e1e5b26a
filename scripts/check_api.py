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
  6. The vocabulary table of docs/api.md:
     count type    every parameter or struct field named *_count is size_t;
     spelling      names use British -ise (normalise), never -ize;
     info name     a call that fills a sinew_*_info is sinew_<kind>_get_info;
     getter        `_get_` appears only in `_get_info`;
     handle        a call that makes a handle (`sinew_x **out`) is sinew_x_create[_from_*]
                   or sinew_x_load[_into], and every handle has _destroy and _get_info;
     desc name     a `const sinew_*_desc *` parameter is named desc;
     output name   a range call's one output is out/out_stride, several are
                   out_<noun>/out_<noun>_stride (noun singular);
     module name   a parameter named after a module is that module's handle;
     buffer size   in a call on a handle, a float array that is not a range output
                   is followed by its size (size_t <noun>_floats);
     defaults      sinew_<desc>_defaults takes (const sinew_<desc> *desc, sinew_<desc> *resolved)
                   and returns sinew_result.

usage: check_api.py [INCLUDE_DIR]     check the headers (default: include/)
       check_api.py --self-test [DIR] also prove each rule catches a planted violation
Exit status 0 when every check passes; the violations are printed otherwise."""
import functools
import os
import re
import sys

MODULE_OF = {'core.h': None, 'skin.h': 'skin', 'skin_tools.h': 'skin', 'soffd.h': 'soffd', 'soffd_driver.h': 'soffd',
             'lattice.h': 'lattice', 'placement.h': 'placement', 'bbw.h': 'bbw',
             'bbw_pose.h': 'bbw', 'corrective.h': 'corrective', 'combine.h': 'combine'}
MODULES = ('skin', 'soffd', 'lattice', 'placement', 'bbw', 'corrective')
GROWING = re.compile(r'^sinew_\w+_(desc|info|report)$|^sinew_lattice_refined_mesh$')


@functools.lru_cache(maxsize=None)
def strip_comments(text):
    return re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)


@functools.lru_cache(maxsize=None)
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
        out.append((m.group(1), tuple(params), comment))
    return tuple(out)


def param_name(p):
    m = re.findall(r'(\w+)\s*(?:\[\w*\])?\s*$', p)
    return m[0] if m else ''


def singular(noun):
    return noun[:-1] if noun.endswith('s') else noun


def check_vocabulary(headers):
    """The vocabulary table of docs/api.md over all headers at once."""
    bad = []
    fns = {}
    for name, text in sorted(headers.items()):
        if name not in MODULE_OF:
            continue
        rets = {m.group(2): ' '.join(m.group(1).split())
                for m in re.finditer(r'^SINEW_API\s+([^;(]*?)\b(\w+)\s*\(', strip_comments(text), re.M)}
        for fn, params, comment in functions(text):
            fns[fn] = (name, params, comment, rets.get(fn, ''))
    handles = set()
    for name, text in sorted(headers.items()):
        if name not in MODULE_OF:
            continue
        code = strip_comments(text)
        handles |= {h for h in re.findall(r'typedef\s+struct\s+(\w+)\s+\1\s*;', code) if h != 'sinew_context'}
        # count type (fields)
        for body in re.findall(r'typedef\s+struct\s+\w+\s*\{(.*?)\}', code, re.S):
            for decl in body.split(';'):
                decl = ' '.join(decl.split())
                m = re.match(r'^(.*?)\b(\w+_count)$', decl)
                if m and m.group(1).strip() != 'size_t':
                    bad.append('%s: count type: field %s is %s, not size_t' % (name, m.group(2), m.group(1).strip()))
        # spelling (identifiers only)
        ize = re.compile(r'(?<![sS])[iI][zZ](?:e|ed|es|ing|ation|E|ED|ES|ING|ATION)(?![a-z])')
        for ident in sorted(i for i in set(re.findall(r'\w+', code)) if ize.search(i)):
            bad.append('%s: spelling: %s uses -ize; the API spells it -ise' % (name, ident))
    for fn, (name, params, comment, ret) in sorted(fns.items()):
        pnames = [param_name(p) for p in params]
        # count type (parameters)
        for p, pn in zip(params, pnames):
            if pn.endswith('_count') and not p.startswith('size_t'):
                bad.append('%s: count type: %s parameter %s is not size_t' % (name, fn, pn))
        # info name
        for p in params:
            m = re.match(r'^(sinew_\w*)_info \*', p)
            if m and not p.startswith('const') and fn != m.group(1) + '_get_info' and fn != 'sinew_saved_get_info':
                bad.append('%s: info name: %s fills a %s_info but is not %s_get_info' % (name, fn, m.group(1), m.group(1)))
        # getter
        if '_get_' in fn and not fn.endswith('_get_info'):
            bad.append('%s: getter: %s uses get_ outside _get_info (name a query by its noun)' % (name, fn))
        # handle
        for p in params:
            m = re.match(r'^(sinew_\w+) \*\*', p)
            if m and m.group(1) in handles:
                h = m.group(1)
                if not (fn == h + '_create' or fn.startswith(h + '_create_from_') or fn in (h + '_load', h + '_load_into')):
                    bad.append('%s: handle: %s makes a %s but is not %s_create or %s_load' % (name, fn, h, h, h))
        # desc name
        for p, pn in zip(params, pnames):
            if re.match(r'^const sinew_\w+_desc \*', p) and pn != 'desc':
                bad.append('%s: desc name: %s names its desc parameter %s' % (name, fn, pn))
        # module name
        for p, pn in zip(params, pnames):
            if pn in MODULES and not re.match(r'^(const )?sinew_%s \*' % pn, p):
                bad.append('%s: module name: %s parameter %s is not a sinew_%s handle' % (name, fn, pn, pn))
        # output name (range calls)
        if 'first' in pnames and 'count' in pnames:
            outs = [i for i, p in enumerate(params) if re.match(r'^(float|uint32_t) \*', p)]
            for i in outs:
                pn = pnames[i]
                want = 'out' if len(outs) == 1 else None
                if want and pn != want:
                    bad.append('%s: output name: %s names its one output %s, not out' % (name, fn, pn))
                if not want and not pn.startswith('out_'):
                    bad.append('%s: output name: %s output %s does not start with out_' % (name, fn, pn))
                following = pnames[i + 1] if i + 1 < len(pnames) else ''
                if 'stride' in following:
                    stride = 'out_stride' if pn == 'out' else singular(pn) + '_stride'
                    if following != stride:
                        bad.append('%s: output name: %s stride of %s is %s, not %s' % (name, fn, pn, following, stride))
        # buffer size (calls on a handle)
        if params and re.match(r'^(const )?(sinew_\w+) \*', params[0]) and \
                re.match(r'^(const )?(sinew_\w+) \*', params[0]).group(2) in handles:
            is_range = 'first' in pnames and 'count' in pnames
            for i, p in enumerate(params):
                pn = pnames[i]
                if not re.match(r'^(const )?float \*', p) or not pn.endswith('s') or pn.endswith('ss') or \
                        'capacity' in pnames:
                    continue   # a single value, or a capacity call (sized by capacity and count)
                if is_range and not p.startswith('const'):
                    continue   # a range output: sized by the range and its stride
                following = params[i + 1] if i + 1 < len(params) else ''
                if following != 'size_t %s_floats' % singular(pn):
                    bad.append('%s: buffer size: %s array %s is not followed by size_t %s_floats'
                               % (name, fn, pn, singular(pn)))
        # defaults
        if fn.endswith('_defaults'):
            desc = fn[:-len('_defaults')]
            if list(params) != ['const %s *desc' % desc, '%s *resolved' % desc] or ret != 'sinew_result':
                bad.append('%s: defaults: %s is not sinew_result %s(const %s *desc, %s *resolved)'
                           % (name, fn, fn, desc, desc))
    for h in sorted(handles):
        for suffix in ('_destroy', '_get_info'):
            if h + suffix not in fns:
                bad.append('handle: %s has no %s%s' % (h, h, suffix))
    return bad


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
                if list(params[-2:]) != ['size_t first', 'size_t count']:
                    bad.append('%s: range call %s does not end with size_t first, size_t count' % (name, fn))
                packed = comment is not None and 'packed' in comment
                for i, p in enumerate(params):
                    if re.match(r'(float|uint32_t)\s*\*', p) and not packed:
                        following = pnames[i + 1] if i + 1 < len(pnames) else ''
                        if 'stride' not in following:
                            bad.append('%s: %s output %s has no stride after it and is not documented packed'
                                       % (name, fn, pnames[i]))
    return bad + check_vocabulary(headers)


def load(include_dir):
    d = os.path.join(include_dir, 'sinew')
    return {f: open(os.path.join(d, f)).read() for f in os.listdir(d) if f.endswith('.h')}


def self_test(headers):
    """Each planted violation must be caught, by the rule it breaks."""
    plants = [
        ('prefix', 'soffd.h', 'SINEW_API void sinew_soffd_destroy(', 'SINEW_API void sinew_destroy_soffd(', 'lacks the prefix'),
        ('struct_size', 'bbw.h', 'typedef struct sinew_bbw_info {\n    size_t struct_size;', 'typedef struct sinew_bbw_info {', 'struct_size'),
        ('range order', 'lattice.h', 'float *out, size_t out_stride,\n                                                 size_t first, size_t count);',
         'size_t first, float *out, size_t out_stride,\n                                                 size_t count);', 'does not end with'),
        ('stride', 'placement.h', 'float *out, size_t out_stride,\n                                             size_t first, size_t count);',
         'float *out,\n                                             size_t first, size_t count);', 'no stride'),
        ('comment', 'skin.h', '/* Destroys a skin; NULL is fine. Not thread-safe against calls using it. */\n', '', 'no comment'),
        ('count type', 'skin.h', 'size_t influence_count;   /* slots', 'uint32_t influence_count;   /* slots', 'count type'),
        ('count type (parameter)', 'bbw.h', 'const sinew_points *points, size_t influence_count,',
         'const sinew_points *points, uint32_t influence_count,', 'count type'),
        ('spelling', 'bbw.h', 'SINEW_BBW_PARTITION_NORMALISE = 1', 'SINEW_BBW_PARTITION_NORMALIZE = 1', 'spelling'),
        ('getter', 'lattice.h', 'SINEW_API sinew_result sinew_lattice_rest_points(',
         'SINEW_API sinew_result sinew_lattice_get_rest_points(', 'getter'),
        ('info name', 'lattice.h', 'SINEW_API sinew_result sinew_lattice_binding_get_info(',
         'SINEW_API sinew_result sinew_lattice_binding_info(', 'info name'),
        ('handle maker', 'lattice.h', 'SINEW_API sinew_result sinew_lattice_refinement_create(',
         'SINEW_API sinew_result sinew_lattice_refine(', 'handle: sinew_lattice_refine makes'),
        ('handle info', 'lattice.h', 'SINEW_API sinew_result sinew_lattice_refinement_get_info(',
         'SINEW_API sinew_result sinew_lattice_refinement_figures(', 'has no sinew_lattice_refinement_get_info'),
        ('desc name', 'soffd.h', 'const sinew_soffd_register_desc *desc);', 'const sinew_soffd_register_desc *policy);',
         'desc name'),
        ('module name', 'soffd.h', 'sinew_soffd *soffd, const sinew_points *points,',
         'sinew_soffd *soffd, const sinew_points *skin,', 'module name'),
        ('output name', 'lattice.h', 'float *out_points, size_t out_point_stride,', 'float *out_points, size_t out_stride,',
         'output name'),
        ('lone output name', 'placement.h', 'float *out, size_t out_stride,\n                                             size_t first, size_t count);',
         'float *out, size_t stride,\n                                             size_t first, size_t count);', 'output name'),
        ('defaults', 'bbw.h', 'SINEW_API sinew_result sinew_bbw_desc_defaults(const sinew_bbw_desc *desc, sinew_bbw_desc *resolved);',
         'SINEW_API sinew_bbw_desc sinew_bbw_desc_defaults(const sinew_bbw_desc *desc);', 'defaults:'),
        ('buffer size', 'soffd.h', 'float *frames, size_t frame_floats);', 'float *frames);', 'buffer size'),
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
