/**
 * The linear BVH on the CPU: the twin of the GPU build (`lbvh.ts`) and the CPU backend's spatial index.
 * Seed 002 §2 ("ArborX", after Karras 2012 and Apetrei 2014): sort the points along a Z-curve, build the binary
 * radix tree over the sorted codes, then fit the boxes bottom-up. Every step is bit-identical to the GPU's.
 *
 *   frame  = sceneFrameCpu(points)          bounds + quantisation scale     (morton.cpu.ts)
 *   codes  = mortonCodesCpu(points, frame)  64-bit Morton codes              (morton.cpu.ts)
 *   sorted = sortCodesCpu(codes)            stable sort, ties by index       (sort.cpu.ts)
 *   tree   = karrasSequentialCpu(…)         Karras 2012 hierarchy, O(n) stack (karras.cpu.ts)
 *   boxes  = refitCpu(…)                    tight boxes, minIndex            (refit.cpu.ts)
 */
import { codeBits } from './layout.js';
import { checkPoints } from './points.js';
import { mortonCodesCpu, sceneFrameCpu, type SceneFrame } from './morton.cpu.js';
import { sortCodesCpu } from './sort.cpu.js';
import { karrasSequentialCpu } from './karras.cpu.js';
import { refitCpu } from './refit.cpu.js';

/** A linear BVH in host memory; the arrays have the layout of `layout.ts`, as the GPU build's buffers do. */
export interface BvhCpu {
  /** Number of points (leaves). */
  n: number;
  dim: number;
  /** Scene bounds and quantisation scales. */
  frame: SceneFrame;
  /** n sorted Morton codes as (low, high) u32 pairs. */
  codes: Uint32Array;
  /** n original indices in Morton order: leaf j is point order[j]. */
  order: Uint32Array;
  /** n × dim coordinates in Morton order. */
  sortedPoints: Float32Array;
  /** n records × 4 u32: left child, right child, minIndex(left), minIndex(right) (unified indices). */
  links: Uint32Array;
  /** n − 1 records × 2·dim f32: internal node i's own box, lo then hi (leaves have none: a leaf's box is its point). */
  boxes: Float32Array;
  /** (n − 1) × 2 u32: first and last leaf of internal node i. */
  ranges: Uint32Array;
  /** 2n − 1 u32: (parent record << 1) | side, per unified index. */
  parents: Uint32Array;
}

/**
 * Builds the BVH of `points` (row-major n × dim, finite, |x| ≤ 1e38). Any dim ≥ 1, any n ≥ 0. `shared`: the sorted
 * rows and the hierarchy (links, ranges, parents) lie in SharedArrayBuffers, for worker threads (src/emst/*.threads.ts
 * copies the rest).
 */
export function buildBvhCpu(points: Float32Array, dim: number, shared = false): BvhCpu {
  const n = checkPoints(points, dim);
  const frame = sceneFrameCpu(points, n, dim);
  const unsorted = mortonCodesCpu(points, n, dim, frame);
  const { codes, order } = sortCodesCpu(unsorted, n, codeBits(dim));
  const buffer = shared ? (bytes: number) => new SharedArrayBuffer(bytes) : (bytes: number) => new ArrayBuffer(bytes);
  const sortedPoints = gatherRows(points, order, n, dim, new Float32Array(buffer(4 * n * dim)));
  const { links, ranges, parents } = karrasSequentialCpu(codes, n, buffer);
  const boxes = refitCpu(sortedPoints, order, n, dim, links, parents);
  return { n, dim, frame, codes, order, sortedPoints, links, boxes, ranges, parents };
}

/** Rows of `points` in `order` (2D unrolled: faster than the generic loop, bench/RESULTS.md). */
function gatherRows(points: Float32Array, order: Uint32Array, n: number, dim: number, out: Float32Array): Float32Array {
  if (dim === 2) {
    for (let j = 0; j < n; j++) {
      const src = 2 * order[j];
      out[2 * j] = points[src];
      out[2 * j + 1] = points[src + 1];
    }
    return out;
  }
  for (let j = 0; j < n; j++) {
    const src = order[j] * dim;
    for (let a = 0; a < dim; a++) out[j * dim + a] = points[src + a];
  }
  return out;
}
