/**
 * Seeded dendrograms for the condensing tests (issue 17): random spanning trees of several shapes and weight kinds
 * with float32 weights (what the GPU carries), canonically ordered and linked by the CPU's singleLinkage.
 */
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import type { MstEdges, SingleLinkageTree } from '../../src/cluster/types.js';
import { mulberry32 } from './random.js';

export type TreeShape = 'random' | 'path' | 'caterpillar' | 'star' | 'blobs';
export type TreeWeights = 'continuous' | 'ties' | 'equal' | 'duplicates';

/** A random spanning tree of n points, edges and endpoints in random order, float32 weights. */
export function randomTree(n: number, seed: number, shape: TreeShape, kind: TreeWeights): MstEdges {
  const rand = mulberry32(seed);
  const ids = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  const m = Math.max(0, n - 1);
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = new Float32Array(m);
  for (let i = 1; i < n; i++) {
    const spine = rand() < 0.5 ? i - 1 : Math.max(0, i - 2);
    const hub = Math.min(i - 1, Math.floor(rand() * 3));
    // blobs: points join one of a few groups by short edges, groups join by long ones (real cluster structure).
    const group = Math.floor((i * 8) / n);
    const j =
      shape === 'random'
        ? Math.floor(rand() * i)
        : shape === 'path'
          ? i - 1
          : shape === 'star'
            ? hub
            : shape === 'blobs'
              ? Math.max(0, Math.min(i - 1, Math.floor((group * n) / 8) + Math.floor(rand() * (i - (group * n) / 8))))
              : spine;
    const flip = rand() < 0.5;
    sources[i - 1] = flip ? ids[i] : ids[j];
    targets[i - 1] = flip ? ids[j] : ids[i];
    const r = rand();
    const firstOfGroup = shape === 'blobs' && i === Math.ceil((group * n) / 8);
    weights[i - 1] =
      kind === 'continuous'
        ? r + (firstOfGroup ? 10 : 0)
        : kind === 'ties'
          ? Math.floor(r * 6) / 2 + (firstOfGroup ? 10 : 0)
          : kind === 'equal'
            ? 0.5
            : r < 0.15
              ? 0
              : r < 0.18
                ? Infinity
                : r;
  }
  return { sources, targets, weights };
}

/** The dendrogram of a tree of n points. */
export function linkageOf(mst: MstEdges, n: number): SingleLinkageTree {
  return singleLinkage(canonicalMst(mst), n);
}
