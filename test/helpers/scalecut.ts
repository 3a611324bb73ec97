/**
 * Oracle for MiSTree's scale cut: Kruskal over every pair whose float32 weight fround(sqrt(key)) is at least
 * fround(minLength) (MiSTree keeps edges with length ≥ scale_cut_length), in the canonical (key, min, max) order,
 * keys as DESIGN.md defines them (optionally on a torus). Returns the forest in (weight, source, target) order.
 */
import { periodicKey } from './periodic.js';
import { PlainUnionFind } from './unionfind.js';

const f32 = Math.fround;

export function scaleCutKruskal(
  p: Float32Array,
  dim: number,
  minLength: number,
  box?: number[],
): [number, number, number][] {
  const n = p.length / dim;
  const period = box ? Float32Array.from(box) : null;
  const key = (a: number, b: number) => {
    if (period) return periodicKey(p, period, a, b);
    let s = 0;
    for (let k = 0; k < dim; k++) {
      const t = f32(p[a * dim + k] - p[b * dim + k]);
      s = f32(s + f32(t * t));
    }
    return s;
  };
  const L = f32(minLength);
  const pairs: [number, number, number][] = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const k = key(a, b);
      if (f32(Math.sqrt(k)) >= L) pairs.push([k, a, b]);
    }
  }
  pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const uf = new PlainUnionFind(n);
  const out: [number, number, number][] = [];
  for (const [k, a, b] of pairs) {
    const ra = uf.find(a);
    const rb = uf.find(b);
    if (ra === rb) continue;
    uf.unionRoots(ra, rb);
    out.push([a, b, f32(Math.sqrt(k))]);
  }
  out.sort((x, y) => x[2] - y[2] || x[0] - y[0] || x[1] - y[1]);
  return out;
}
