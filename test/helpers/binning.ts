/**
 * Seeded inputs for the GPU histograms (src/stats/binning.ts) and their CPU twin: float32 lengths, degrees and branch
 * (length, end-to-end) pairs with many values exactly on, just above and just below the float64 bin edges, ties,
 * zeros, straight branches (e = L), NaN shapes (e > L, L = 0), masks, and a power-of-two scale — plus the host's
 * float64 values the oracle (histogram.ts) bins. Issue 17: a case of special float32s (subnormals, ±0, negatives,
 * NaN, ±∞, lengths beyond the kernel's safe range) as lengths and as every (L, e) pair among them, against edges
 * that are themselves subnormal, ±0 or beyond float32's range.
 */
import { binEdges, type MstBins, type MstValues } from '../../src/stats/histogram.js';
import { bitsOf, floatOf } from '../../src/stats/binning.cpu.js';
import { mulberry32 } from './random.js';

export interface BinningCase {
  name: string;
  /** Host value = GPU value × scale for lengths. */
  scale: number;
  bins: MstBins;
  degree: Uint32Array;
  /** Float32 bits of the edge lengths. */
  edgeWords: Uint32Array;
  /** Per walk: | count | start | end | float32 bits of L | as the walks write them (stride 4, offset 3). */
  branchRecords: Uint32Array;
  /** Per walk: its end-to-end distance. */
  branchEndToEnd: Float32Array;
  /** Per walk: ≠ 0 where it reports a branch. */
  branchMask: Uint32Array;
  /** The host's values (only the reporting walks), as mstStats hands them to mstHistograms. */
  host: MstValues;
}

const up = (f: number) => (f === 0 ? floatOf(1) : floatOf(f > 0 ? bitsOf(f) + 1 : bitsOf(f) - 1));
const down = (f: number) => -up(-f);

/** Values on, above and below each edge (divided by scale), among random ones in [0, top). */
function nearEdges(random: () => number, count: number, top: number, edges: ArrayLike<number>, scale: number) {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    if (random() < 0.5 && edges.length > 0) {
      const e = Math.fround(edges[Math.floor(random() * edges.length)] / scale);
      const pick = random();
      out[i] = pick < 0.34 ? e : pick < 0.67 ? up(e) : down(e);
      if (out[i] < 0) out[i] = 0;
    } else out[i] = random() < 0.05 ? 0 : Math.fround(random() * top);
  }
  return out;
}

/**
 * Float32 bit patterns no real statistic has, which the kernel must still bin as the host does: ±0, subnormals, the
 * smallest normal, the edges of binning.wgsl's safe range for L (2^−95, 2^94), the largest float, ±∞, NaNs, ±1, 3.
 */
export const SPECIAL_BITS = [
  0x00000000, 0x80000000, 0x00000001, 0x00000002, 0x007fffff, 0x80000001, 0x00800000, 0x0c000000, 0x0fffffff,
  0x10000000, 0x6e7fffff, 0x6e800000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0xbf800000,
  0x3f800000, 0x40400000,
];

/** Edges for the special case: subnormal, ±0 and beyond float32's range (after dividing by scale). */
const SPECIAL_EDGES = [-2, -1e-44, -0, 1e-44, 2 ** -126, 0.5, 1, 8.5e37, 1e39];
export const SPECIAL_BINS: MstBins = {
  edgeLength: SPECIAL_EDGES,
  branchLength: SPECIAL_EDGES,
  branchShape: [-0.5, -1e-40, 0, 1e-40, 2 ** -12, 0.02, 0.5, 0.70710678118654757, 1, 1 + 1e-7, 1.5],
};

/** Writes every special length, and every (L, e) pair of specials and neighbours of L, over the first walks. */
function placeSpecials(edgeValues: Float32Array, L: Float32Array, e2e: Float32Array, mask: Uint32Array): void {
  const edgeBits = new Uint32Array(edgeValues.buffer);
  SPECIAL_BITS.forEach((b, j) => (edgeBits[1 + j] = b));
  const Lbits = new Uint32Array(L.buffer);
  const eBits = new Uint32Array(e2e.buffer);
  let i = 1;
  for (const lb of SPECIAL_BITS) {
    const l = floatOf(lb);
    const near = [l, up(l), down(l), Math.fround(l / 2), Math.fround(l * 0.75)].map(bitsOf);
    for (const eb of [...SPECIAL_BITS, ...near]) {
      if (i >= L.length) return;
      Lbits[i] = lb;
      eBits[i] = eb;
      mask[i] = 1;
      i++;
    }
  }
}

export function binningCase(
  name: string,
  n: number,
  seed: number,
  bins: MstBins = {},
  scale = 0.25,
  specials = false,
): BinningCase {
  const random = mulberry32(seed);
  const m = Math.max(n - 1, 0);
  // Edges first from a draft of the data (the top value stays, so the default edges do not move), then values on them.
  const top = 3;
  const lengths = nearEdges(random, m, top, [], scale);
  if (m > 0) lengths[0] = top;
  const lengthEdges = binEdges(
    'edgeLength',
    bins.edgeLength,
    Float64Array.from(lengths, (x) => x * scale),
  );
  const inside = Array.from(lengthEdges).filter((e) => e / scale < top * 0.99 || bins.edgeLength !== undefined);
  const edgeValues = nearEdges(random, m, top, inside, scale);
  if (m > 0) edgeValues[0] = top;
  const walks = m;
  const records = new Uint32Array(4 * walks);
  const e2e = new Float32Array(walks);
  const mask = new Uint32Array(walks);
  const branchTop = 20;
  const lengthDraft = Float64Array.from({ length: walks }, () => 0);
  if (walks > 0) lengthDraft[0] = branchTop * scale;
  const branchEdges = binEdges('branchLength', bins.branchLength, lengthDraft);
  const branchInside = Array.from(branchEdges).filter(
    (e) => e / scale < branchTop * 0.99 || bins.branchLength !== undefined,
  );
  const shapeEdges = binEdges('branchShape', bins.branchShape, []);
  const L = nearEdges(random, walks, branchTop, branchInside, scale);
  for (let i = 0; i < walks; i++) {
    mask[i] = i === 0 || random() < 0.6 ? 1 : 0;
    if (i === 0) L[i] = branchTop;
    let e: number;
    const pick = random();
    if (pick < 0.5) {
      // √(1 − e/L) on a shape edge w: e = L(1 − w²), then a neighbour.
      const w = shapeEdges[Math.floor(random() * shapeEdges.length)];
      e = Math.fround(L[i] * (1 - w * w));
      const p = random();
      e = p < 0.3 ? e : p < 0.6 ? up(e) : down(e);
    } else if (pick < 0.6) e = L[i];
    else if (pick < 0.65) e = up(L[i]);
    else e = Math.fround(L[i] * random());
    if (random() < 0.02) {
      L[i] = 0;
      e = random() < 0.5 ? 0 : 1;
    }
    e2e[i] = Math.max(e, 0);
  }
  if (specials) placeSpecials(edgeValues, L, e2e, mask);
  const lengthBits = new Uint32Array(L.buffer);
  for (let i = 0; i < walks; i++) {
    records[4 * i] = 2;
    records[4 * i + 3] = lengthBits[i];
  }
  const degree = new Uint32Array(n);
  for (let i = 0; i < n; i++) degree[i] = random() < 0.01 ? 70 + Math.floor(random() * 5) : Math.floor(random() * 9);
  const kept = Array.from({ length: walks }, (_, i) => i).filter((i) => mask[i] !== 0);
  const branchLengths = Float64Array.from(kept, (i) => L[i] * scale);
  const branchShapes = Float64Array.from(kept, (i) => (e2e[i] * scale) / (L[i] * scale));
  return {
    name,
    scale,
    bins,
    degree,
    edgeWords: new Uint32Array(edgeValues.buffer),
    branchRecords: records,
    branchEndToEnd: e2e,
    branchMask: mask,
    host: {
      degree,
      edgeLengths: Float64Array.from(edgeValues, (x) => x * scale),
      branchLengths,
      branchShapes,
    },
  };
}

/** The cases both tests run: default bins, user linear and log bins, explicit edges, and degenerate sizes. */
export function binningCases(): BinningCase[] {
  return [
    binningCase('default bins', 3000, 1),
    binningCase('user counts and log l, b', 2500, 2, {
      edgeLength: { count: 37, log: true },
      branchLength: { count: 13, log: true },
      branchShape: { count: 7 },
      degree: { log: true, count: 4 },
    }),
    binningCase('explicit edges', 2000, 3, {
      degree: [-1, 0, 2.5, 3, 100],
      edgeLength: [0, 0.1, 0.1000001, 0.3, 0.75],
      branchLength: [0.25, 1, 2.5, 4],
      branchShape: [-0.5, 0, 0.02, 0.5, 0.70710678118654757, 0.9999, 1],
    }),
    binningCase('more bins than shared memory holds', 1500, 4, { edgeLength: { count: 1500 } }, 1),
    binningCase('n = 0', 0, 5),
    binningCase('n = 1', 1, 6),
    binningCase('n = 2', 2, 7),
    binningCase('n = 257 (not a multiple of the workgroup)', 257, 8),
    binningCase(
      'special floats (subnormal, ±0, NaN, ±∞, extreme L) against odd edges',
      800,
      9,
      SPECIAL_BINS,
      0.25,
      true,
    ),
  ];
}
