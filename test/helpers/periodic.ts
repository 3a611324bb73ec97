/**
 * Point sets for periodic-box EMST tests, and a float32-key Prim on the torus (the exact order the backends must
 * reproduce: per axis t = fround(a − b), |t|, min(|t|, fround(L − |t|)), squares summed in dimension order with a
 * rounding after every step, as src/knn/keys.cpu.ts and shaders/emst/distance.wgsl compute them).
 */
import { mulberry32 } from './random.js';

const f32 = Math.fround;

export type PeriodicKind = 'faces' | 'corners' | 'grid' | 'inner';

/**
 * n seeded points in the box [0, L_k):
 *  - 'faces': half uniform, half within 2 % of a random face (many pairs are nearer around the torus);
 *  - 'corners': clumps around the 2^d corners, so every clump spans the box's edges;
 *  - 'grid': integer coordinates in a box of integer sides (float32 keys exact; duplicates and massive ties);
 *  - 'inner': uniform inside [0.3 L, 0.7 L): every pair is nearer directly than around the torus.
 */
export function periodicPoints(kind: PeriodicKind, n: number, box: number[], seed: number): Float32Array {
  const dim = box.length;
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const face = r() < 0.5 ? Math.floor(r() * dim) : -1;
    for (let k = 0; k < dim; k++) {
      const L = box[k];
      let x: number;
      if (kind === 'grid') x = Math.floor(r() * L);
      else if (kind === 'inner') x = L * (0.3 + 0.4 * r());
      else if (kind === 'corners') x = r() < 0.5 ? 0.03 * L * r() : L * (1 - 0.03 * r());
      else x = k === face ? (r() < 0.5 ? 0.02 * L * r() : L * (1 - 0.02 * r())) : L * r();
      let v = f32(x);
      if (v >= f32(L)) v = 0;
      p[i * dim + k] = v;
    }
  }
  return p;
}

/** The float32 key of points a and b on the torus of side lengths `period` (float32). */
export function periodicKey(p: Float32Array, period: Float32Array, a: number, b: number): number {
  const dim = period.length;
  let s = 0;
  for (let k = 0; k < dim; k++) {
    let t = Math.abs(f32(p[a * dim + k] - p[b * dim + k]));
    const around = f32(period[k] - t);
    if (around < t) t = around;
    s = f32(s + f32(t * t));
  }
  return s;
}

/** Canonical (key, min, max) Prim on the torus with float32 keys: [source, target, fround(sqrt(key))] rows. */
export function periodicPrimF32(p: Float32Array, box: number[]): [number, number, number][] {
  const dim = box.length;
  const period = Float32Array.from(box);
  const n = p.length / dim;
  const less = (k1: number, a1: number, b1: number, k2: number, a2: number, b2: number) =>
    k1 < k2 || (k1 === k2 && (a1 < a2 || (a1 === a2 && b1 < b2)));
  const inTree = new Uint8Array(n);
  const bk = new Float64Array(n).fill(Infinity);
  const bu = new Int32Array(n).fill(-1);
  const edges: [number, number, number][] = [];
  if (n === 0) return edges;
  inTree[0] = 1;
  for (let j = 1; j < n; j++) [bk[j], bu[j]] = [periodicKey(p, period, 0, j), 0];
  for (let step = 1; step < n; step++) {
    let v = -1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      if (v < 0 || less(bk[j], Math.min(j, bu[j]), Math.max(j, bu[j]), bk[v], Math.min(v, bu[v]), Math.max(v, bu[v])))
        v = j;
    }
    edges.push([Math.min(v, bu[v]), Math.max(v, bu[v]), f32(Math.sqrt(bk[v]))]);
    inTree[v] = 1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      const k = periodicKey(p, period, v, j);
      if (less(k, Math.min(v, j), Math.max(v, j), bk[j], Math.min(j, bu[j]), Math.max(j, bu[j])))
        [bk[j], bu[j]] = [k, v];
    }
  }
  edges.sort((x, y) => x[2] - y[2] || x[0] - y[0] || x[1] - y[1]);
  return edges;
}
