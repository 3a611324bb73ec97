/**
 * CPU twin of the scatter (scatter.ts, shaders/bvh/scatter.wgsl): points[order[j]] = sorted[j], the inverse of the
 * build's gather (sorted[j] = points[order[j]]), on rows of `dim` 32-bit words.
 */
export function scatterRowsCpu(
  sorted: Uint32Array | Float32Array,
  order: Uint32Array,
  n: number,
  dim: number,
  out: Uint32Array | Float32Array,
): void {
  for (let j = 0; j < n; j++) {
    const dst = order[j] * dim;
    for (let a = 0; a < dim; a++) out[dst + a] = sorted[j * dim + a];
  }
}
