/**
 * CPU twin of the canonical edge order on the GPU (canonical.ts, shaders/emst/canonical.wgsl): the correctly rounded
 * f32 square root computed the way the shader computes it (integer mantissas, an estimate fixed by exact
 * comparisons), and the order (weight, min, max) of raw MST edges (a, b, key bits).
 *
 * Both must equal what the host does today (pipeline.ts readEdges): weights Math.fround(Math.sqrt(key)) and
 * edges.cpu.ts's sortEdgesCanonical; the tests check the twin against those and the GPU against the twin.
 */
import type { EdgeList } from './edges.cpu.js';

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/**
 * RN_f32(sqrt(x)) as bits for the f32 x of bits `xb`: x = M · 2^e (M in [2^23, 2^24)), N = M · 2^23 or M · 2^24
 * (making the exponent left even) in [2^46, 2^48), and r = round(sqrt(N)) is the integer with
 * r(r − 1) < N ≤ r(r + 1) — all below 2^53, so exact in doubles. ±0, +∞ and NaN come back as they are, other
 * negatives as NaN (0x7fc00000).
 */
export function sqrtRoundBits(xb: number): number {
  xb >>>= 0;
  if ((xb & 0x7fffffff) === 0 || xb >= 0x7f800000) return xb > 0x80000000 ? 0x7fc00000 : xb;
  const ex = (xb >>> 23) & 0xff;
  let m = xb & 0x7fffff;
  let e: number;
  if (ex === 0) {
    const z = Math.clz32(m) - 8;
    m <<= z;
    e = -149 - z;
  } else {
    m |= 0x800000;
    e = ex - 150;
  }
  const k = e & 1 ? 23 : 24;
  const n = m * 2 ** k;
  const s = (e - k) / 2;
  let r = Math.min(0xffffff, Math.max(0x800000, Math.round(Math.sqrt(n))));
  while (n > r * (r + 1)) r++;
  while (n <= r * (r - 1)) r--;
  return (((s + 150) << 23) | (r - 0x800000)) >>> 0;
}

/** The host's weight of a key: Math.fround(Math.sqrt(key)) as f32 bits (what the tests hold the twin to). */
export function hostWeightBits(keyBits: number): number {
  U32[0] = keyBits;
  F32[0] = Math.sqrt(F32[0]);
  return U32[0];
}

/** B, the bits of the largest point id n − 1 (1 for n ≤ 2): the width of each end in `pairs`' packed key. */
export function endBits(n: number): number {
  return Math.max(1, 32 - Math.clz32(Math.max(1, n - 1)));
}

/**
 * The canonical edge list of `m` raw edges (a, b, key bits) — 3 words each, as Borůvka leaves them — sorted by
 * (weight bits, min, max) with weights sqrtRoundBits(key): the GPU's result (keys (source, weight bits), values
 * target) as an EdgeList.
 */
export function canonicalEdgesCpu(raw: Uint32Array, m: number): EdgeList {
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weightBits = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const a = raw[3 * e];
    const b = raw[3 * e + 1];
    sources[e] = Math.min(a, b);
    targets[e] = Math.max(a, b);
    weightBits[e] = sqrtRoundBits(raw[3 * e + 2]);
  }
  const order = Uint32Array.from({ length: m }, (_, i) => i).sort(
    (x, y) => weightBits[x] - weightBits[y] || sources[x] - sources[y] || targets[x] - targets[y],
  );
  const out: EdgeList = {
    sources: Uint32Array.from(order, (e) => sources[e]),
    targets: Uint32Array.from(order, (e) => targets[e]),
    weights: new Float32Array(m),
  };
  new Uint32Array(out.weights.buffer).set(Uint32Array.from(order, (e) => weightBits[e]));
  return out;
}
