/**
 * CPU twin of the GPU refit (`shaders/bvh/refit.wgsl`): every node's box is the tight box of its leaves, stored in
 * its parent's record, and its minIndex the smallest original index among them (layout in `layout.ts`). Children
 * are finished before parents by walking the records in reverse pre-order. Min/max put −0 below +0, as the GPU's
 * order-preserving atomics do, so boxes are bit-identical.
 */
import { maxF, minF } from './floatorder.js';

/** Fills `boxes` (n records × 4·dim f32) and links' minIndex words from the Morton-ordered points. */
export function refitCpu(
  sortedPoints: Float32Array,
  order: Uint32Array,
  n: number,
  dim: number,
  links: Uint32Array,
  parents: Uint32Array,
): Float32Array {
  const w = 4 * dim;
  const boxes = new Float32Array(Math.max(n, 1) * w);
  if (n === 0) return boxes;
  // Leaves: box = point, minIndex = original index.
  for (let j = 0; j < n; j++) {
    const p = parents[n - 1 + j];
    const base = (p >>> 1) * w + (p & 1) * 2 * dim;
    for (let a = 0; a < dim; a++) {
      const x = sortedPoints[j * dim + a];
      boxes[base + a] = x;
      boxes[base + dim + a] = x;
    }
    links[4 * (p >>> 1) + 2 + (p & 1)] = order[j];
  }
  // Internal nodes in reverse pre-order (children before parents).
  const pre = new Uint32Array(Math.max(n - 1, 0));
  let count = 0;
  const stack = new Uint32Array(Math.max(n - 1, 1));
  let sp = 0;
  if (n > 1) stack[sp++] = 0;
  while (sp > 0) {
    const i = stack[--sp];
    pre[count++] = i;
    const l = links[4 * i];
    const r = links[4 * i + 1];
    if (l < n - 1) stack[sp++] = l;
    if (r < n - 1) stack[sp++] = r;
  }
  for (let c = count - 1; c >= 0; c--) {
    const i = pre[c];
    const p = parents[i];
    const dst = (p >>> 1) * w + (p & 1) * 2 * dim;
    const src = i * w;
    for (let a = 0; a < dim; a++) {
      boxes[dst + a] = minF(boxes[src + a], boxes[src + 2 * dim + a]);
      boxes[dst + dim + a] = maxF(boxes[src + dim + a], boxes[src + 3 * dim + a]);
    }
    links[4 * (p >>> 1) + 2 + (p & 1)] = Math.min(links[4 * i + 2], links[4 * i + 3]);
  }
  return boxes;
}
