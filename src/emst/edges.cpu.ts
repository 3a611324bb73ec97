/**
 * The edge list at the boundary (DESIGN.md, "Data at the boundary") and its canonical sort.
 *
 * Canonical order for point clouds: (weight, min(u, v), max(u, v)) ascending. Weights are non-negative float32,
 * whose bit patterns order like u32, so the sort is a stable LSD radix sort on three u32 keys (16-bit digits,
 * least significant key first: max, then min, then the weight bits); passes whose digit is constant are skipped.
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

/** Returns the edges sorted by (weight, source, target), sources[i] < targets[i] assumed. Inputs are not modified. */
export function sortEdgesCanonical(edges: EdgeList): EdgeList {
  const m = edges.sources.length;
  let perm = new Uint32Array(m);
  for (let i = 0; i < m; i++) perm[i] = i;
  let next = new Uint32Array(m);
  const counts = new Uint32Array(65536);
  const weightBits = new Uint32Array(edges.weights.buffer, edges.weights.byteOffset, m);
  for (const keys of [edges.targets, edges.sources, weightBits]) {
    for (const shift of [0, 16]) {
      counts.fill(0);
      for (let i = 0; i < m; i++) counts[(keys[i] >>> shift) & 0xffff]++;
      let sum = 0;
      let constant = false;
      for (let d = 0; d < 65536; d++) {
        const c = counts[d];
        if (c === m) constant = true;
        counts[d] = sum;
        sum += c;
      }
      if (constant) continue;
      for (let i = 0; i < m; i++) {
        const e = perm[i];
        next[counts[(keys[e] >>> shift) & 0xffff]++] = e;
      }
      [perm, next] = [next, perm];
    }
  }
  const out: EdgeList = {
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
