/**
 * The edge list at the boundary (DESIGN.md, "Data at the boundary") and its canonical sort.
 *
 * Canonical order for point clouds: (weight, min(u, v), max(u, v)) ascending. Weights are non-negative float32,
 * whose bit patterns order like u32: a stable LSD radix sort of the weight bits (11-bit digits, constant digits
 * skipped), then every run of equal weights sorted by (source, target) — by insertion, or for long runs (integer
 * grids, duplicates) by a radix sort of its own. O(m) plus the runs.
 */

/** An MST or MSF as parallel arrays. */
export interface EdgeList {
  /** Edge sources; sources[i] < targets[i]. */
  sources: Uint32Array;
  /** Edge targets. */
  targets: Uint32Array;
  /** Edge weights (float32), in canonical order together with the endpoints. */
  weights: Float32Array;
}

/**
 * Returns the edges sorted by (weight, source, target), sources[i] < targets[i] assumed. Inputs are not modified;
 * the result goes to `into` when given (arrays of the inputs' length).
 */
export function sortEdgesCanonical(edges: EdgeList, into?: EdgeList): EdgeList {
  const m = edges.sources.length;
  const weightBits = new Uint32Array(edges.weights.buffer, edges.weights.byteOffset, m);
  // 1. Stable LSD radix sort of the weight bits (11-bit digits, keys carried along: sequential reads).
  let keys = Uint32Array.from(weightBits);
  let perm = new Uint32Array(m);
  for (let i = 0; i < m; i++) perm[i] = i;
  let keys2 = new Uint32Array(m);
  let perm2 = new Uint32Array(m);
  const counts = new Uint32Array(1 << 11);
  for (let shift = 0; shift < 32; shift += 11) {
    if (radixPass(keys, perm, shift, 11, keys2, perm2, counts)) [keys, keys2, perm, perm2] = [keys2, keys, perm2, perm];
  }
  // 2. Runs of equal weights, by (source, target).
  for (let a = 0; a < m;) {
    let b = a + 1;
    while (b < m && keys[b] === keys[a]) b++;
    if (b - a > 1) sortRun(perm, a, b, edges.sources, edges.targets);
    a = b;
  }
  const out: EdgeList = into ?? {
    sources: new Uint32Array(m),
    targets: new Uint32Array(m),
    weights: new Float32Array(m),
  };
  for (let i = 0; i < m; i++) {
    const e = perm[i];
    out.sources[i] = edges.sources[e];
    out.targets[i] = edges.targets[e];
    out.weights[i] = edges.weights[e];
  }
  return out;
}

/** Merges two edge lists each in canonical order into one (ties take `a` first; the order is total, so no ties). */
export function mergeCanonical(a: EdgeList, b: EdgeList): EdgeList {
  const m1 = a.sources.length;
  const m2 = b.sources.length;
  const out: EdgeList = {
    sources: new Uint32Array(m1 + m2),
    targets: new Uint32Array(m1 + m2),
    weights: new Float32Array(m1 + m2),
  };
  const { sources: as, targets: at, weights: aw } = a;
  const { sources: bs, targets: bt, weights: bw } = b;
  const { sources: os, targets: ot, weights: ow } = out;
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < m1 && j < m2) {
    const wa = aw[i];
    const wb = bw[j];
    if (wa < wb || (wa === wb && (as[i] < bs[j] || (as[i] === bs[j] && at[i] <= bt[j])))) {
      os[o] = as[i];
      ot[o] = at[i];
      ow[o++] = wa;
      i++;
    } else {
      os[o] = bs[j];
      ot[o] = bt[j];
      ow[o++] = wb;
      j++;
    }
  }
  for (; i < m1; i++, o++) {
    os[o] = as[i];
    ot[o] = at[i];
    ow[o] = aw[i];
  }
  for (; j < m2; j++, o++) {
    os[o] = bs[j];
    ot[o] = bt[j];
    ow[o] = bw[j];
  }
  return out;
}

/**
 * Completes the canonical order of edges already sorted by weight: sorts every run of equal weights by
 * (source, target), in place. Runs are short and nearly sorted except on ties (integer grids, duplicates), where the
 * radix path of sortRun takes over.
 */
export function sortEqualWeightRuns(edges: EdgeList): void {
  sortEqualWeightRunsFrom(edges, 0, edges.sources.length);
}

/**
 * `sortEqualWeightRuns` for the runs that start at e0 … e1 − 1 (a run may end beyond e1): ranges that tile the edges
 * sort every run exactly once, so they can run on several threads.
 */
export function sortEqualWeightRunsFrom(edges: EdgeList, e0: number, e1: number): void {
  const { sources, targets, weights } = edges;
  const m = sources.length;
  let a = e0;
  // Skip the tail of a run that started before e0 (its own range sorts it).
  while (a > 0 && a < e1 && weights[a] === weights[a - 1]) a++;
  while (a < e1) {
    const w = weights[a];
    let b = a + 1;
    while (b < m && weights[b] === w) b++;
    if (b - a > 1) sortRunInPlace(sources, targets, a, b);
    a = b;
  }
}

/** Sorts the pairs (sources[i], targets[i]) for a ≤ i < b: insertion sort in place, or sortRun for long runs. */
export function sortRunInPlace(sources: Uint32Array, targets: Uint32Array, a: number, b: number): void {
  if (b - a <= 64) {
    for (let i = a + 1; i < b; i++) {
      const s = sources[i];
      const t = targets[i];
      let j = i;
      while (j > a && (sources[j - 1] > s || (sources[j - 1] === s && targets[j - 1] > t))) {
        sources[j] = sources[j - 1];
        targets[j] = targets[j - 1];
        j--;
      }
      sources[j] = s;
      targets[j] = t;
    }
    return;
  }
  const perm = new Uint32Array(b - a);
  for (let i = 0; i < perm.length; i++) perm[i] = a + i;
  sortRun(perm, 0, perm.length, sources, targets);
  const s = Uint32Array.from(perm, (e) => sources[e]);
  const t = Uint32Array.from(perm, (e) => targets[e]);
  sources.set(s, a);
  targets.set(t, a);
}

/** One stable counting-sort pass on `bits` bits at `shift`; false (nothing moved) when the digit is constant. */
function radixPass(
  keys: Uint32Array,
  perm: Uint32Array,
  shift: number,
  bits: number,
  outKeys: Uint32Array,
  outPerm: Uint32Array,
  counts: Uint32Array,
): boolean {
  const m = keys.length;
  const mask = (1 << bits) - 1;
  counts.fill(0);
  for (let i = 0; i < m; i++) counts[(keys[i] >>> shift) & mask]++;
  let sum = 0;
  for (let d = 0; d <= mask; d++) {
    const c = counts[d];
    if (c === m) return false;
    counts[d] = sum;
    sum += c;
  }
  for (let i = 0; i < m; i++) {
    const to = counts[(keys[i] >>> shift) & mask]++;
    outKeys[to] = keys[i];
    outPerm[to] = perm[i];
  }
  return true;
}

/** Sorts perm[a … b) by (sources, targets) of the edges it names: insertion sort, or radix sort for long runs. */
function sortRun(perm: Uint32Array, a: number, b: number, sources: Uint32Array, targets: Uint32Array): void {
  const less = (e: number, f: number) =>
    sources[e] < sources[f] || (sources[e] === sources[f] && targets[e] < targets[f]);
  if (b - a <= 32) {
    for (let i = a + 1; i < b; i++) {
      const e = perm[i];
      let j = i;
      while (j > a && less(e, perm[j - 1])) {
        perm[j] = perm[j - 1];
        j--;
      }
      perm[j] = e;
    }
    return;
  }
  if (b - a <= 1 << 15) {
    // Mid-size runs: a comparison sort (the radix passes below cost 2^16 counters each, whatever the run's length).
    const run = perm.subarray(a, b);
    run.sort((e, f) => sources[e] - sources[f] || targets[e] - targets[f]);
    return;
  }
  // Long runs (integer grids, duplicates): LSD radix by target, then by source, 16-bit digits.
  const r = b - a;
  let run = perm.slice(a, b);
  let keys = new Uint32Array(r);
  let run2 = new Uint32Array(r);
  let keys2 = new Uint32Array(r);
  const counts = new Uint32Array(1 << 16);
  for (const key of [targets, sources]) {
    for (let i = 0; i < r; i++) keys[i] = key[run[i]];
    for (const shift of [0, 16]) {
      if (radixPass(keys, run, shift, 16, keys2, run2, counts)) [keys, keys2, run, run2] = [keys2, keys, run2, run];
    }
  }
  perm.set(run, a);
}
