/**
 * Seeded random spanning trees shaped like mutual-reachability MSTs, for the clustering tests: `chain` of the points
 * hang near the previous one (long chains), the rest anywhere; weights drawn from `levels` values (0 among them:
 * duplicates). In canonical edge order.
 */
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { mulberry32 } from './random.js';

/** `shuffleIds`: point ids shuffled first, so that ids carry no order. */
export function randomChainTree(n: number, seed: number, levels: number, chain: number, shuffleIds = true): MstEdges {
  const rand = mulberry32(seed);
  const m = Math.max(0, n - 1);
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = new Float32Array(m);
  const id = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; shuffleIds && i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [id[i], id[j]] = [id[j], id[i]];
  }
  for (let i = 1; i < n; i++) {
    const j = rand() < chain ? Math.max(0, i - 1 - Math.floor(rand() * 8)) : Math.floor(rand() * i);
    sources[i - 1] = id[i];
    targets[i - 1] = id[j];
    weights[i - 1] = Math.floor(rand() * levels) / levels;
  }
  return canonicalMst({ sources, targets, weights });
}
