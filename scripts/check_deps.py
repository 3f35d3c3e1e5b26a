#!/usr/bin/env python3
"""Checks that calls between the library's source files run one way.

Reads the object files of a build (nm), links each undefined symbol of a file
to the file that defines it, and reports every set of files that call each
other round in a cycle (a strongly connected component of more than one
file). Leaf files sit below the files that use them, so a cycle means two
files that each need the other: merge them, or move what both need into a
file below both.

usage: check_deps.py BUILD_DIR            check the library built in BUILD_DIR
       check_deps.py --graph BUILD_DIR    also print every file's callees
       check_deps.py --self-test          prove a planted cycle is caught
Exit status 0 when there is no cycle; the cycles are printed otherwise."""
import os
import re
import subprocess
import sys

# Objects of the library itself (libsinew and its per-ISA kernel archives);
# tests, examples and the Python binding are users, not part of the graph.
LIBRARY_DIR = re.compile(r'^libsinew(_\w+)?\.(a|so[.\d]*)\.p$')
OBJECT_NAME = re.compile(r'^src_(.+)\.c\.o$')
# The folders of src/ by layer (docs/architecture.md): a file may call files of
# its own folder and of lower layers only.
LAYERS = {'core': 0, 'io': 1, 'geom': 1, 'linalg': 2, 'skin': 3, 'soffd': 3, 'lattice': 3, 'bbw': 3, 'corrective': 3, 'combine': 3}


def object_files(build_dir):
    """{source path: object path}, one object per source file."""
    found = {}
    for entry in sorted(os.listdir(build_dir)):
        if not LIBRARY_DIR.match(entry):
            continue
        folder = os.path.join(build_dir, entry)
        for name in sorted(os.listdir(folder)):
            m = OBJECT_NAME.match(name)
            if m:
                found.setdefault(source_name(m.group(1)), os.path.join(folder, name))
    return found


def source_name(mangled):
    """meson names src/bbw/solve.c's object src_bbw_solve.c.o: the first part is the folder."""
    folder, _, rest = mangled.partition('_')
    return f'src/{folder}/{rest}.c'


def symbols(path):
    """(defined, undefined) global symbol names of one object file."""
    out = subprocess.run(['nm', '-P', path], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == 'U':
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def unshared(build_dir, objects):
    """Internal functions defined by a library file that no other object file of
    the build (library, tests, benchmarks, binding) refers to: [(file, name)]."""
    owner = {}
    for source, path in objects.items():
        for name in symbols(path)[0]:
            if not name.startswith('sinew_'):
                owner.setdefault(name, (source, os.path.basename(path)))
    referenced = set()
    for root, _, files in os.walk(build_dir):
        for f in files:
            if not f.endswith('.o'):
                continue
            for name in symbols(os.path.join(root, f))[1]:
                if name in owner and owner[name][1] != f and not f.endswith('_' + owner[name][1].split('_', 1)[1]):
                    referenced.add(name)
    return sorted((source, name) for name, (source, _) in owner.items() if name not in referenced)


def call_graph(objects):
    """{file: set of files it calls}."""
    owner, needs = {}, {}
    for source, path in objects.items():
        defined, undefined = symbols(path)
        for name in defined:
            owner.setdefault(name, source)
        needs[source] = undefined
    return {source: {owner[n] for n in undefined if n in owner and owner[n] != source}
            for source, undefined in needs.items()}


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def folder(source):
    return source.split('/')[1]


def layer_violations(graph):
    """Calls from a folder to one of the same or a higher layer: [(caller, callee)]."""
    bad = []
    for source in sorted(graph):
        for callee in sorted(graph[source]):
            a, b = folder(source), folder(callee)
            if a != b and LAYERS.get(b, 99) >= LAYERS.get(a, -1):
                bad.append((source, callee))
    return bad


def report(graph):
    for caller, callee in layer_violations(graph):
        print(f'layer: {caller} ({folder(caller)}) calls {callee} ({folder(callee)})')
    found = cycles(graph)
    for component in found:
        members = set(component)
        print('cycle: ' + ', '.join(component))
        for source in component:
            inside = sorted(graph[source] & members)
            print(f'  {source} calls {", ".join(inside)}')
    return found


def self_test():
    graph = {'src/a/x.c': {'src/a/y.c'}, 'src/a/y.c': {'src/a/z.c'}, 'src/a/z.c': {'src/a/x.c'},
             'src/a/leaf.c': set(), 'src/a/top.c': {'src/a/leaf.c', 'src/a/x.c'}}
    found = cycles(graph)
    assert found == [['src/a/x.c', 'src/a/y.c', 'src/a/z.c']], found
    graph['src/a/z.c'] = set()
    assert cycles(graph) == []
    assert source_name('bbw_solve_driver') == 'src/bbw/solve_driver.c'
    layered = {'src/skin/a.c': {'src/core/b.c', 'src/soffd/c.c'}, 'src/core/b.c': set(), 'src/soffd/c.c': set(),
               'src/geom/d.c': {'src/core/b.c'}}
    assert layer_violations(layered) == [('src/skin/a.c', 'src/soffd/c.c')], layer_violations(layered)
    print('self-test: a planted three-file cycle is caught, and none is reported once it is broken; '
          'a technique calling another is caught')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    show = len(argv) > 1 and argv[1] == '--graph'
    rest = argv[2:] if show else argv[1:]
    if len(rest) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    objects = object_files(rest[0])
    if not objects:
        print(f'no library objects under {rest[0]}', file=sys.stderr)
        return 2
    graph = call_graph(objects)
    if show:
        for source in sorted(graph):
            print(f'{source}: {", ".join(sorted(graph[source]))}')
    found = report(graph)
    bad = layer_violations(graph)
    lonely = unshared(rest[0], objects)
    for source, name in lonely:
        print(f'static: {source} defines {name}, which no other file calls (make it static)')
    print(f'{len(objects)} files, {sum(len(v) for v in graph.values())} calls between files, '
          f'{len(found)} cycle(s), {len(bad)} call(s) against the layers, {len(lonely)} function(s) to make static')
    return 1 if found or bad or lonely else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
