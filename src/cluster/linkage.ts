/**
 * Single linkage from an MST: Kruskal's union-find over the edges in canonical order, written in scipy's linkage
 * layout as hdbscan's `_hdbscan_linkage.label` does (McInnes & Healy 2017, "Accelerated hierarchical density based
 * clustering", ICDMW; scipy.cluster.hierarchy's Z matrix). Row i is (node of the min endpoint's component, node of
 * the max endpoint's component, weight, size) and creates node n + i. O(n α(n)).
 *
 * Important! the rows must follow the canonical edge order (weight, min, max): that order fixes the node ids, the
 * condensed tree built from them, and so the cluster numbering (DESIGN.md, "HDBSCAN* semantics").
 */
import { InputError } from '../errors.js';
import type { MstEdges, SingleLinkageTree } from './types.js';

/**
 * Builds the dendrogram of n points from their MST, whose edges must already be in canonical order with
 * sources < targets (see `canonicalMst`). Throws InputError if an edge closes a cycle (not a spanning tree).
 */
export function singleLinkage(mst: MstEdges, n: number): SingleLinkageTree {
  const m = n === 0 ? 0 : n - 1;
  const left = new Uint32Array(m);
  const right = new Uint32Array(m);
  const distance = new Float64Array(m);
  const size = new Uint32Array(m);
  // Union-find on points (union by size, path halving); `node[root]` is the dendrogram node of that component.
  const parent = new Uint32Array(n);
  const compSize = new Uint32Array(n);
  const node = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    parent[i] = i;
    compSize[i] = 1;
    node[i] = i;
  }
  const find = (x: number): number => {
    while (parent[x] !== x) {
      const g = parent[parent[x]];
      parent[x] = g;
      x = g;
    }
    return x;
  };
  const { sources, targets, weights } = mst;
  for (let i = 0; i < m; i++) {
    const ra = find(sources[i]);
    const rb = find(targets[i]);
    if (ra === rb) {
      throw new InputError(
        `Expected a spanning tree, but edge ${i} = (${sources[i]}, ${targets[i]}) closes a cycle (some points are ` +
          `left disconnected).`,
      );
    }
    left[i] = node[ra];
    right[i] = node[rb];
    distance[i] = weights[i];
    const merged = compSize[ra] + compSize[rb];
    size[i] = merged;
    const big = compSize[ra] >= compSize[rb] ? ra : rb;
    parent[big === ra ? rb : ra] = big;
    compSize[big] = merged;
    node[big] = n + i;
  }
  return { left, right, distance, size };
}
