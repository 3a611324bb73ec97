/**
 * MiSTree's branches (Naidoo et al. 2020, §2.2; MiSTree's `branches.py`), found in linear time.
 *
 * A branch is a maximal chain of ≥ 2 edges whose interior nodes have degree 2 and whose two end nodes have degree ≠ 2.
 * Its length is the sum of its edge lengths, its edge count the number of edges, and its end-to-end distance the
 * straight line between its end nodes — or, in a periodic box, the length of the sum of the minimum-image
 * displacements of its edges walked in order (the chain unwrapped, so a branch that crosses a face is measured
 * across that face, and one longer than half the box is not folded back).
 *
 * MiSTree finds branches by repeated `np.where` scans over the edge list (quadratic in the worst case). Here each
 * branch is walked once from one of its two "end edges" (edges with exactly one endpoint of degree 2):
 *
 *   link[v] = XOR of the ids of the edges touching v      one pass over the edges
 *   for a degree-2 node v entered along edge e:          the other edge is link[v] ^ e
 *   the node across edge e from v:                        sources[e] ^ targets[e] ^ v
 *
 * so the walk needs 4 bytes per node (instead of a CSR adjacency's 4 per node plus 8 per edge) and 1 byte per edge
 * to mark the end edge a walk arrived at (that branch is then not walked again from its other end). No recursion,
 * no per-node objects: it runs on 10^8-point trees in one process.
 *
 * Branches are numbered in the order of their first end edge in the edge list; each is walked from that edge's end
 * node of degree ≠ 2 (`ends[2b]`) to its other end (`ends[2b + 1]`).
 */
import type { Geometry } from './lengths.js';
import { displacement, distance } from './lengths.js';

export interface Branches {
  /** Per branch: the sum of its edge lengths (float64, summed in walk order). */
  lengths: Float64Array;
  /** Per branch: its number of edges (≥ 2). */
  edgeCounts: Uint32Array;
  /** Per branch b: its end nodes ends[2b] (where the walk started) and ends[2b + 1]; both have degree ≠ 2. */
  ends: Uint32Array;
  /**
   * Per branch: the straight-line distance between its end nodes; in a periodic box the length of the summed
   * minimum-image displacements along the chain.
   */
  endToEnd: Float64Array;
}

/** XOR of the ids of the edges touching each node: for a node of degree 2 it lets a walk step past it in O(1). */
function edgeXorLinks(n: number, sources: Uint32Array, targets: Uint32Array): Uint32Array {
  const link = new Uint32Array(n);
  for (let e = 0; e < sources.length; e++) {
    link[sources[e]] ^= e;
    link[targets[e]] ^= e;
  }
  return link;
}

/** True where exactly one endpoint of edge e has degree 2: the first or last edge of a branch. */
const isEndEdge = (degree: Uint32Array, s: number, t: number): boolean => (degree[s] === 2) !== (degree[t] === 2);

/**
 * Every branch of the forest `sources[i]`–`targets[i]` over `n` nodes, with `degree` from nodeDegrees and `lengths`
 * aligned with the edges. `geometry` gives the end-to-end distances (its box, if any, the minimum images).
 */
export function findBranches(
  n: number,
  sources: Uint32Array,
  targets: Uint32Array,
  degree: Uint32Array,
  lengths: Float64Array,
  geometry: Geometry,
): Branches {
  const m = sources.length;
  let endEdges = 0;
  for (let e = 0; e < m; e++) if (isEndEdge(degree, sources[e], targets[e])) endEdges++;
  // Important! Every branch has exactly two end edges and every end edge lies on exactly one branch.
  const count = endEdges >>> 1;
  const out: Branches = {
    lengths: new Float64Array(count),
    edgeCounts: new Uint32Array(count),
    ends: new Uint32Array(2 * count),
    endToEnd: new Float64Array(count),
  };
  if (count === 0) return out;
  const link = edgeXorLinks(n, sources, targets);
  const arrived = new Uint8Array(m);
  const periodic = geometry.box !== undefined;
  const dim = geometry.dim;
  const step = new Float64Array(dim);
  const sum = new Float64Array(dim);
  let b = 0;
  for (let e = 0; e < m; e++) {
    const s = sources[e];
    const t = targets[e];
    if (arrived[e] || !isEndEdge(degree, s, t)) continue;
    const start = degree[s] === 2 ? t : s;
    let v = start === s ? t : s;
    let edge = e;
    let length = lengths[e];
    let edges = 1;
    if (periodic) displacement(geometry, start, v, sum);
    while (degree[v] === 2) {
      edge = (link[v] ^ edge) >>> 0; // >>> 0: ids ≥ 2^31 stay unsigned
      const w = (sources[edge] ^ targets[edge] ^ v) >>> 0;
      length += lengths[edge];
      edges++;
      if (periodic) {
        displacement(geometry, v, w, step);
        for (let k = 0; k < dim; k++) sum[k] += step[k];
      }
      v = w;
    }
    arrived[edge] = 1;
    out.lengths[b] = length;
    out.edgeCounts[b] = edges;
    out.ends[2 * b] = start;
    out.ends[2 * b + 1] = v;
    out.endToEnd[b] = periodic ? norm(sum) : distance(geometry, start, v);
    b++;
  }
  return out;
}

function norm(v: Float64Array): number {
  let s = 0;
  for (let k = 0; k < v.length; k++) s += v[k] * v[k];
  return Math.sqrt(s);
}
