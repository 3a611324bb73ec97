/**
 * Validation at the door (CONVENTIONS.md 10): every graph is checked once, here, and every error names the bad
 * value and where it is. The result is the normalised form both backends read.
 */
import { InputError } from '../errors.js';
import { isCsr, weightKind, type Graph, type WeightArray, type WeightKind } from './types.js';

/** A validated graph: typed-array views in the shapes the backends read. */
export type NormalGraph =
  | {
      kind: 'edges';
      numVertices: number;
      sources: Uint32Array;
      targets: Uint32Array;
      weights: WeightArray;
      weightKind: WeightKind;
      /** Edge-id slots (= sources.length). */
      idCount: number;
      /** Edges that are not self loops. */
      candidates: number;
    }
  | {
      kind: 'csr';
      numVertices: number;
      offsets: Uint32Array;
      neighbours: Uint32Array;
      weights: WeightArray;
      weightKind: WeightKind;
      /** Edge-id slots (= neighbours.length). */
      idCount: number;
      /** Entries with v < neighbour: the undirected edges. */
      candidates: number;
      /** Whether every row's neighbours are non-decreasing (the GPU's row minima search mirrors in them). */
      sortedRows: boolean;
    };

/** The largest edge-id count: ids must stay below the 0xffffffff sentinel of the GPU's minimum records. */
const MAX_EDGE_SLOTS = 0xfffffffe;

const asU32 = (a: Uint32Array | Int32Array): Uint32Array =>
  a instanceof Uint32Array ? a : new Uint32Array(a.buffer, a.byteOffset, a.length);

function checkWeights(w: unknown, count: number, name: string): WeightKind {
  if (!(w instanceof Float32Array || w instanceof Int32Array || w instanceof Uint32Array)) {
    throw new InputError(`Expected weights to be a Float32Array, Int32Array or Uint32Array, got ${describe(w)}.`);
  }
  if (w.length !== count) throw new InputError(`Expected weights.length = ${name} = ${count}, got ${w.length}.`);
  if (w instanceof Float32Array) {
    // One rule for every graph (API and every reader): a weight is a finite float32. ±Infinity and NaN are refused
    // like 1e39 (beyond float32, it would round to Infinity): sums of infinite weights give NaN totals.
    for (let i = 0; i < w.length; i++) {
      if (!Number.isFinite(w[i]))
        throw new InputError(
          `Expected finite weights (a finite float32, |w| ≤ 3.4028235e38), got weights[${i}] = ${w[i]}.`,
        );
    }
  }
  return weightKind(w);
}

function describe(x: unknown): string {
  if (x === null || x === undefined) return String(x);
  return (x as object).constructor?.name ?? typeof x;
}

/** Checks a graph and returns its normalised form; throws InputError naming the first bad value. */
export function validateGraph(g: Graph): NormalGraph {
  if (g === null || typeof g !== 'object') throw new InputError(`Expected a graph object, got ${describe(g)}.`);
  return isCsr(g) ? validateCsr(g) : validateEdgeList(g);
}

function validateEdgeList(g: Extract<Graph, { sources: unknown }>): NormalGraph {
  const n = g.numVertices;
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new InputError(`Expected numVertices to be an integer in [0, 2^32 − 1], got ${n}.`);
  }
  const { sources: s, targets: t } = g;
  if (!(s instanceof Uint32Array)) throw new InputError(`Expected sources to be a Uint32Array, got ${describe(s)}.`);
  if (!(t instanceof Uint32Array)) throw new InputError(`Expected targets to be a Uint32Array, got ${describe(t)}.`);
  if (t.length !== s.length)
    throw new InputError(`Expected targets.length = sources.length = ${s.length}, got ${t.length}.`);
  if (s.length > MAX_EDGE_SLOTS) throw new InputError(`Expected at most ${MAX_EDGE_SLOTS} edges, got ${s.length}.`);
  const kind = checkWeights(g.weights, s.length, 'sources.length');
  let candidates = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] >= n) throw new InputError(`Expected sources[${i}] < numVertices = ${n}, got ${s[i]}.`);
    if (t[i] >= n) throw new InputError(`Expected targets[${i}] < numVertices = ${n}, got ${t[i]}.`);
    if (s[i] !== t[i]) candidates++;
  }
  return {
    kind: 'edges',
    numVertices: n,
    sources: s,
    targets: t,
    weights: g.weights,
    weightKind: kind,
    idCount: s.length,
    candidates,
  };
}

function validateCsr(g: Extract<Graph, { offsets: unknown }>): NormalGraph {
  for (const name of ['offsets', 'neighbours'] as const) {
    const a = g[name];
    if (!(a instanceof Uint32Array || a instanceof Int32Array)) {
      throw new InputError(`Expected ${name} to be a Uint32Array or Int32Array, got ${describe(a)}.`);
    }
  }
  if (g.offsets.length < 1) throw new InputError(`Expected offsets to hold numVertices + 1 ≥ 1 entries, got 0.`);
  const n = g.offsets.length - 1;
  const off = asU32(g.offsets);
  const nbr = asU32(g.neighbours);
  const e = nbr.length;
  if (e > MAX_EDGE_SLOTS) throw new InputError(`Expected at most ${MAX_EDGE_SLOTS} CSR entries, got ${e}.`);
  if (g.offsets[0] !== 0) throw new InputError(`Expected offsets[0] = 0, got ${g.offsets[0]}.`);
  for (let v = 0; v < n; v++) {
    if (g.offsets[v + 1] < g.offsets[v]) {
      throw new InputError(
        `Expected non-decreasing offsets, got offsets[${v}] = ${g.offsets[v]} > offsets[${v + 1}] = ${g.offsets[v + 1]}.`,
      );
    }
  }
  if (off[n] !== e) throw new InputError(`Expected offsets[${n}] = neighbours.length = ${e}, got ${g.offsets[n]}.`);
  const kind = checkWeights(g.weights, e, 'neighbours.length');
  let up = 0;
  let down = 0;
  let sortedRows = true;
  for (let v = 0; v < n; v++) {
    for (let j = off[v]; j < off[v + 1]; j++) {
      const u = nbr[j];
      if (u >= n)
        throw new InputError(`Expected neighbours[${j}] (row ${v}) < numVertices = ${n}, got ${g.neighbours[j]}.`);
      if (u > v) up++;
      else if (u < v) down++;
      if (j > off[v] && nbr[j - 1] > u) sortedRows = false;
    }
  }
  checkSymmetric(off, nbr, g.weights, up, down);
  return {
    kind: 'csr',
    numVertices: n,
    offsets: off,
    neighbours: nbr,
    weights: g.weights,
    weightKind: kind,
    idCount: e,
    candidates: up,
    sortedRows,
  };
}

/**
 * Every entry (v, u, w) with v < u must have a mirror (u, v, w). Checked as equal multisets through two
 * order-independent sums of hashes (exact up to a ~2^-64 collision); on a mismatch, an exact search names the
 * first entry without a mirror.
 */
function checkSymmetric(off: Uint32Array, nbr: Uint32Array, w: WeightArray, up: number, down: number): void {
  const bits = new Uint32Array(w.buffer, w.byteOffset, w.length);
  let a1 = 0,
    a2 = 0,
    b1 = 0,
    b2 = 0;
  const n = off.length - 1;
  for (let v = 0; v < n; v++) {
    for (let j = off[v]; j < off[v + 1]; j++) {
      const u = nbr[j];
      if (u === v) continue;
      const lo = u < v ? u : v;
      const hi = u < v ? v : u;
      const h1 = mix(lo, hi, bits[j], 0x9e3779b9);
      const h2 = mix(hi, lo, bits[j], 0x85ebca6b);
      if (u > v) {
        a1 = (a1 + h1) | 0;
        a2 = (a2 + h2) | 0;
      } else {
        b1 = (b1 + h1) | 0;
        b2 = (b2 + h2) | 0;
      }
    }
  }
  if (up === down && a1 === b1 && a2 === b2) return;
  // Exact search for the culprit: count (lo, hi, bits) triples of the upper copies, cancel them with the lower ones.
  const pending = new Map<string, number[]>();
  for (let v = 0; v < n; v++) {
    for (let j = off[v]; j < off[v + 1]; j++) {
      const u = nbr[j];
      if (u === v) continue;
      const key = u > v ? `${v},${u},${bits[j]}` : `${u},${v},${bits[j]}`;
      const list = pending.get(key);
      const sign = u > v ? 1 : -1;
      if (list && list.length > 0 && Math.sign(list[0]) !== sign) list.pop();
      else if (list) list.push(sign * (j + 1));
      else pending.set(key, [sign * (j + 1)]);
    }
  }
  for (const list of pending.values()) {
    if (list.length === 0) continue;
    const j = Math.abs(list[0]) - 1;
    let v = 0;
    while (off[v + 1] <= j) v++;
    throw new InputError(
      `Expected a symmetric CSR (each undirected edge stored in both endpoints' rows with equal weights): ` +
        `entry ${j} (row ${v}, neighbour ${nbr[j]}, weight ${w[j]}) has no mirror in row ${nbr[j]}.`,
    );
  }
  throw new InputError(`Expected a symmetric CSR: ${up} entries with v < neighbour but ${down} with v > neighbour.`);
}

function mix(a: number, b: number, c: number, seed: number): number {
  let h = seed ^ Math.imul(a, 0xcc9e2d51);
  h = Math.imul(h ^ (h >>> 15), 0x1b873593) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ c;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 13)) | 0;
}
