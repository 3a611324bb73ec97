/**
 * CPU twins of the high-dimensional EMST's candidate-list kernels (highdim.ts): the brute-force lists
 * (emst/highdim_brute.wgsl), the index → Morton position map of the 'bvh' lists (emst/highdim_rank.wgsl) and one
 * round's settle (emst/highdim_settle.wgsl). Each computes exactly what its kernel computes, for the seeded
 * GPU-vs-CPU tests; the CPU backend's own use of lists is candidates.cpu.ts.
 */
import { squaredDistance } from '../knn/keys.cpu.js';

const NONE = 0xffffffff;

/** n lists of k entries, row j = Morton position j: key bits (NONE past n − 1 neighbours) and Morton positions. */
export interface CandidateListsCpu {
  k: number;
  keys: Uint32Array;
  pos: Uint32Array;
}

/**
 * Every point's k first neighbours in (key, original index) order, itself excluded, by scanning all points:
 * `sortedPoints` n × dim in Morton order, `order` the original index of each Morton position.
 */
export function bruteListsCpu(
  sortedPoints: Float32Array,
  order: Uint32Array,
  dim: number,
  k: number,
): CandidateListsCpu {
  const n = order.length;
  const keys = new Uint32Array(n * k).fill(NONE);
  const pos = new Uint32Array(n * k).fill(NONE);
  const bits = new Uint32Array(1);
  const asFloat = new Float32Array(bits.buffer);
  const idx = new Uint32Array(k);
  for (let j = 0; j < n; j++) {
    const base = j * k;
    idx.fill(NONE);
    for (let p = 0; p < n; p++) {
      if (p === j) continue;
      asFloat[0] = squaredDistance(sortedPoints, dim, j, p);
      const key = bits[0];
      const o = order[p];
      const topKey = keys[base + k - 1];
      if (key > topKey || (key === topKey && o > idx[k - 1])) continue;
      let r = k - 1;
      while (r > 0 && (keys[base + r - 1] > key || (keys[base + r - 1] === key && idx[r - 1] > o))) {
        keys[base + r] = keys[base + r - 1];
        idx[r] = idx[r - 1];
        pos[base + r] = pos[base + r - 1];
        r--;
      }
      keys[base + r] = key;
      idx[r] = o;
      pos[base + r] = p;
    }
  }
  return { k, keys, pos };
}

/** Maps list entries holding original indices to Morton positions in place (NONE stays): the 'bvh' lists. */
export function ranksCpu(order: Uint32Array, entries: Uint32Array): void {
  const rank = new Uint32Array(order.length);
  for (let j = 0; j < order.length; j++) rank[order[j]] = j;
  for (let i = 0; i < entries.length; i++) if (entries[i] !== NONE) entries[i] = rank[entries[i]];
}

/** One round's state as the settle kernel sees it (Morton positions; cand as (key bits, position) pairs). */
export interface SettleStateCpu {
  label: Uint32Array;
  cursor: Uint32Array;
  /** 2n words: cand[2j] key bits (NONE for none), cand[2j + 1] the far end's Morton position. */
  cand: Uint32Array;
  pointBound: Uint32Array;
}

/** Mutual reachability's inputs of the settle: per Morton position the core² bits and the original index; 1 / alpha². */
export interface SettleReachCpu {
  core2: Uint32Array;
  order: Uint32Array;
  ia2: number;
}

/** Squared core distances (f32 bits, Morton order) from the lists: row j's m-th key, m = min(minSamples, n − 1). */
export function coresCpu(lists: CandidateListsCpu, n: number, minSamples: number): Uint32Array {
  const m = Math.min(minSamples, n - 1);
  const out = new Uint32Array(n);
  for (let j = 0; j < n; j++) out[j] = lists.keys[j * lists.k + m - 1];
  return out;
}

const bitsOf = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0];
const floatOf = (b: number) => new Float32Array(new Uint32Array([b]).buffer)[0];

/**
 * One round's settle of every point (emst/highdim_settle.wgsl), in place; `cut` the scale cut's key bits; `mr` for
 * mutual reachability.
 */
export function settleCpu(lists: CandidateListsCpu, state: SettleStateCpu, cut = 0, mr?: SettleReachCpu): void {
  const { k, keys, pos } = lists;
  const { label, cursor, cand, pointBound } = state;
  const n = label.length;
  for (let j = 0; j < n; j++) {
    const comp = label[j];
    if (cand[2 * j] !== NONE && label[cand[2 * j + 1]] !== comp) continue;
    const base = j * k;
    let r = cursor[j];
    while (r < k && pos[base + r] !== NONE && (label[pos[base + r]] === comp || keys[base + r] < cut)) r++;
    cursor[j] = r;
    if (mr) {
      settleReach(lists, state, mr, j, comp, r);
      continue;
    }
    if (r < k && pos[base + r] !== NONE) {
      cand[2 * j] = keys[base + r];
      cand[2 * j + 1] = pos[base + r];
      continue;
    }
    cand[2 * j] = NONE;
    cand[2 * j + 1] = NONE;
    const bound = r === k ? keys[base + k - 1] : NONE;
    if (bound > pointBound[j]) pointBound[j] = bound;
  }
}

/** The mutual-reachability settle of point j in component comp from list entry r0 on (highdim_settle.wgsl). */
function settleReach(
  lists: CandidateListsCpu,
  state: SettleStateCpu,
  mr: SettleReachCpu,
  j: number,
  comp: number,
  r0: number,
): void {
  const { k, keys, pos } = lists;
  const { label, cand, pointBound } = state;
  const { core2, order, ia2 } = mr;
  const scaled = (e: number) => bitsOf(Math.fround(floatOf(e) * ia2));
  const base = j * k;
  let bestKey = NONE;
  let bestIdx = NONE;
  let bestPos = NONE;
  const last = base + k - 1;
  const full = pos[last] !== NONE;
  for (let r = r0; r < k; r++) {
    const p = pos[base + r];
    if (p === NONE) break;
    if (label[p] === comp) continue;
    const key = Math.max(scaled(keys[base + r]), core2[j], core2[p]);
    const o = order[p];
    if (key < bestKey || (key === bestKey && o < bestIdx)) {
      bestKey = key;
      bestIdx = o;
      bestPos = p;
    }
  }
  let exact = bestPos !== NONE;
  let bound = NONE;
  if (full) {
    const outside = Math.max(scaled(keys[last]), core2[j]);
    exact = exact && (bestKey < outside || (bestKey === outside && ia2 === 1 && bestIdx <= order[pos[last]]));
    bound = Math.min(bestKey, outside);
  }
  if (exact) {
    cand[2 * j] = bestKey;
    cand[2 * j + 1] = bestPos;
    return;
  }
  cand[2 * j] = NONE;
  cand[2 * j + 1] = NONE;
  if (bound > pointBound[j]) pointBound[j] = bound;
}

/** Every tile's bounding box (emst/highdim_tiles.wgsl): tiles of `tile` Morton-consecutive points, lo then hi. */
export function tileBoxesCpu(sortedPoints: Float32Array, n: number, dim: number, tile: number): Float32Array {
  const tiles = Math.ceil(n / tile);
  const out = new Float32Array(2 * dim * tiles);
  for (let t = 0; t < tiles; t++) {
    for (let k = 0; k < dim; k++) {
      let lo = sortedPoints[t * tile * dim + k];
      let hi = lo;
      for (let p = t * tile + 1; p < Math.min((t + 1) * tile, n); p++) {
        const x = sortedPoints[p * dim + k];
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      out[t * 2 * dim + k] = lo;
      out[t * 2 * dim + dim + k] = hi;
    }
  }
  return out;
}
