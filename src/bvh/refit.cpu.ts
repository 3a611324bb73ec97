/**
 * CPU twin of the GPU refit (`shaders/bvh/refit.wgsl`): every internal node's box is the tight box of its leaves,
 * stored in its own record, and its minIndex (in its parent's links record) the smallest original index among them
 * (layout in `layout.ts`). Children are finished before parents by walking the internal nodes in reverse pre-order;
 * a leaf child contributes its point. Min/max put −0 below +0, as the GPU's order-preserving atomics do, so boxes
 * are bit-identical.
 */
import { maxF, minF } from './floatorder.js';
import { boxWords } from './layout.js';

/** Fills `boxes` ((n − 1) records × 2·dim f32) and links' minIndex words from the Morton-ordered points. */
export function refitCpu(
  sortedPoints: Float32Array,
  order: Uint32Array,
  n: number,
  dim: number,
  links: Uint32Array,
  parents: Uint32Array,
): Float32Array {
  const w = boxWords(dim);
  const leaves = n - 1;
  const boxes = new Float32Array(Math.max(leaves, 0) * w);
  if (n === 0) return boxes;
  // Leaves: minIndex = original index (a leaf's box is its point, not stored).
  for (let j = 0; j < n; j++) {
    const p = parents[leaves + j];
    links[4 * (p >>> 1) + 2 + (p & 1)] = order[j];
  }
  // Internal nodes in reverse pre-order (children before parents).
  const pre = new Uint32Array(Math.max(leaves, 0));
  let count = 0;
  const stack = new Uint32Array(Math.max(leaves, 1));
  let sp = 0;
  if (n > 1) stack[sp++] = 0;
  while (sp > 0) {
    const i = stack[--sp];
    pre[count++] = i;
    const l = links[4 * i];
    const r = links[4 * i + 1];
    if (l < leaves) stack[sp++] = l;
    if (r < leaves) stack[sp++] = r;
  }
  for (let c = count - 1; c >= 0; c--) {
    const i = pre[c];
    const l = links[4 * i];
    const r = links[4 * i + 1];
    // A child's lo and hi: its box (internal) or its point twice (leaf).
    const srcL = l < leaves ? boxes : sortedPoints;
    const lLo = l < leaves ? l * w : (l - leaves) * dim;
    const lHi = l < leaves ? lLo + dim : lLo;
    const srcR = r < leaves ? boxes : sortedPoints;
    const rLo = r < leaves ? r * w : (r - leaves) * dim;
    const rHi = r < leaves ? rLo + dim : rLo;
    const dst = i * w;
    for (let a = 0; a < dim; a++) {
      boxes[dst + a] = minF(srcL[lLo + a], srcR[rLo + a]);
      boxes[dst + dim + a] = maxF(srcL[lHi + a], srcR[rHi + a]);
    }
    const p = parents[i];
    links[4 * (p >>> 1) + 2 + (p & 1)] = Math.min(links[4 * i + 2], links[4 * i + 3]);
  }
  return boxes;
}
