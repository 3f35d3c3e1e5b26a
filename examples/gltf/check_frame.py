#!/usr/bin/env python3
"""Independent check of one gltf_play frame: re-evaluates the glTF (node
hierarchy, LINEAR/STEP animation with slerp, linear blend skinning of the first
primitive) in plain Python, double precision, and prints the largest distance
to the positions in the OBJ frame.

usage: check_frame.py <file.gltf> <animation index> <frame.obj>
(the frame's time is read from the OBJ's first line; data: URIs and .bin files
beside the .gltf; no CUBICSPLINE, no .glb: enough for the shared characters)."""
import base64, bisect, json, math, os, struct, sys

path, anim_index, obj_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(obj_path) as f:
    time = float(f.readline().split('t = ')[1].split()[0])
    ours = [list(map(float, line.split()[1:])) for line in f if line.startswith('v ')]
g = json.load(open(path))

def buffer_bytes(b):
    uri = b['uri']
    if uri.startswith('data:'):
        return base64.b64decode(uri.split(',', 1)[1])
    return open(os.path.join(os.path.dirname(path), uri), 'rb').read()
buffers = [buffer_bytes(b) for b in g['buffers']]
FORMAT = {5120: ('b', 1, 127.0), 5121: ('B', 1, 255.0), 5122: ('h', 2, 32767.0), 5123: ('H', 2, 65535.0),
          5125: ('I', 4, None), 5126: ('f', 4, None)}
WIDTH = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}

def accessor(i):
    a = g['accessors'][i]
    view = g['bufferViews'][a['bufferView']]
    fmt, size, norm = FORMAT[a['componentType']]
    n = WIDTH[a['type']]
    stride = view.get('byteStride', size * n)
    base = view.get('byteOffset', 0) + a.get('byteOffset', 0)
    data = buffers[view['buffer']]
    rows = [list(struct.unpack_from('<%d%s' % (n, fmt), data, base + k * stride)) for k in range(a['count'])]
    if a.get('normalized'):
        rows = [[max(x / norm, -1.0) for x in r] for r in rows]
    return rows

def multiply(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(4)) for c in range(4)] for r in range(4)]

def trs(t, q, s):
    x, y, z, w = q
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return [[r[i][c] * s[c] for c in range(3)] + [t[i]] for i in range(3)] + [[0, 0, 0, 1]]

def normalized(q):
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]

def sample(sampler, path_name):
    times = [x[0] for x in accessor(sampler['input'])]
    values = accessor(sampler['output'])
    if time <= times[0]:
        return values[0]
    if time >= times[-1]:
        return values[-1]
    k = bisect.bisect_right(times, time) - 1
    a, b = values[k], values[k + 1]
    if sampler.get('interpolation', 'LINEAR') == 'STEP':
        return a
    u = (time - times[k]) / (times[k + 1] - times[k])
    if path_name != 'rotation':
        return [x + (y - x) * u for x, y in zip(a, b)]
    dot = sum(x * y for x, y in zip(a, b))
    if dot < 0:
        b, dot = [-x for x in b], -dot
    if dot > 0.9995:
        return normalized([x + (y - x) * u for x, y in zip(a, b)])
    theta = math.acos(dot)
    return normalized([(math.sin((1 - u) * theta) * x + math.sin(u * theta) * y) / math.sin(theta) for x, y in zip(a, b)])

nodes = g['nodes']
T = [n.get('translation', [0, 0, 0]) for n in nodes]
R = [normalized(n.get('rotation', [0, 0, 0, 1])) for n in nodes]
S = [n.get('scale', [1, 1, 1]) for n in nodes]
if g.get('animations'):
    anim = g['animations'][anim_index]
    for ch in anim['channels']:
        p = ch['target']['path']
        if p in ('translation', 'rotation', 'scale') and 'node' in ch['target']:
            {'translation': T, 'rotation': R, 'scale': S}[p][ch['target']['node']] = sample(anim['samplers'][ch['sampler']], p)
parent = {c: i for i, n in enumerate(nodes) for c in n.get('children', [])}

def world(i):
    n = nodes[i]
    local = [[n['matrix'][4 * c + r] for c in range(4)] for r in range(4)] if 'matrix' in n else trs(T[i], R[i], S[i])
    return multiply(world(parent[i]), local) if i in parent else local

node = next(n for n in nodes if 'mesh' in n and 'skin' in n)
skin = g['skins'][node['skin']]
ibm = [[[m[4 * c + r] for c in range(4)] for r in range(4)] for m in accessor(skin['inverseBindMatrices'])]
joint = [multiply(world(j), ibm[k]) for k, j in enumerate(skin['joints'])]
prim = g['meshes'][node['mesh']]['primitives'][0]
P, J, W = (accessor(prim['attributes'][k]) for k in ('POSITION', 'JOINTS_0', 'WEIGHTS_0'))
worst = extent = 0.0
for v in range(len(P)):
    total = sum(W[v])
    out = [0.0, 0.0, 0.0]
    for k in range(4):
        m = joint[J[v][k]]
        for r in range(3):
            out[r] += W[v][k] / total * (sum(m[r][c] * P[v][c] for c in range(3)) + m[r][3])
    worst = max(worst, max(abs(a - b) for a, b in zip(out, ours[v])))
    extent = max(extent, max(abs(x) for x in out))
print('%s t = %.9g: largest difference %.3g (%.3g of the extent %.4g)' % (os.path.basename(path), time, worst,
      worst / extent, extent))
sys.exit(0 if worst <= 1e-5 * extent else 1)
