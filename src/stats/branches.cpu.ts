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
 *   link(v) = XOR of the ids of the edges touching v     one pass over the edges (with the degrees)
 *   for a degree-2 node v entered along edge e:          the other edge is link(v) ^ e
 *   the node across edge e from v:                        sources[e] ^ targets[e] ^ v
 *
 * so the walk needs 8 bytes per node (degree and link side by side; a CSR adjacency needs 4 per node plus 8 per
 * edge) and 1 byte per edge marking the end edges still to walk (a walk clears the end edge it arrives at, so the
 * branch is not walked again from its other end). No recursion, no per-node objects: it runs on 10^8-point trees in
 * one process. The walks jump through memory wherever node ids are not spatially ordered; that, not the arithmetic,
 * is what they cost.
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

/**
 * Per node v, side by side so a walk reads both from one cache line: links[2v] = the degree of v, links[2v + 1] =
 * the XOR of the ids of the edges touching v (for a node of degree 2, a walk steps past it in O(1)).
 */
export function nodeLinks(n: number, sources: Uint32Array, targets: Uint32Array): Uint32Array {
  const links = new Uint32Array(2 * n);
  for (let e = 0; e < sources.length; e++) {
    const s = 2 * sources[e];
    const t = 2 * targets[e];
    links[s]++;
    links[s + 1] ^= e;
    links[t]++;
    links[t + 1] ^= e;
  }
  return links;
}

/** The degrees out of nodeLinks (every other entry). */
export function degreesOf(links: Uint32Array): Uint32Array {
  const degree = new Uint32Array(links.length >>> 1);
  for (let v = 0; v < degree.length; v++) degree[v] = links[2 * v];
  return degree;
}

/**
 * Every branch of the forest `sources[i]`–`targets[i]`, with `links` from nodeLinks and `lengths` aligned with the
 * edges. `geometry` gives the end-to-end distances (its box, if any, the minimum images).
 */
export function findBranches(
  sources: Uint32Array,
  targets: Uint32Array,
  links: Uint32Array,
  lengths: Float64Array,
  geometry: Geometry,
): Branches {
  const m = sources.length;
  // pending[e] = 1 for an end edge (exactly one endpoint of degree 2) whose branch has not been walked yet.
  const pending = new Uint8Array(m);
  let endEdges = 0;
  for (let e = 0; e < m; e++) {
    if ((links[2 * sources[e]] === 2) !== (links[2 * targets[e]] === 2)) {
      pending[e] = 1;
      endEdges++;
    }
  }
  // Important! Every branch has exactly two end edges and every end edge lies on exactly one branch.
  const count = endEdges >>> 1;
  const out: Branches = {
    lengths: new Float64Array(count),
    edgeCounts: new Uint32Array(count),
    ends: new Uint32Array(2 * count),
    endToEnd: new Float64Array(count),
  };
  const periodic = geometry.box !== undefined;
  const dim = geometry.dim;
  const step = new Float64Array(dim);
  const sum = new Float64Array(dim);
  let b = 0;
  for (let e = 0; e < m; e++) {
    if (!pending[e]) continue;
    const s = sources[e];
    const t = targets[e];
    const start = links[2 * s] === 2 ? t : s;
    let v = start === s ? t : s;
    let edge = e;
    let length = lengths[e];
    let edges = 1;
    if (periodic) displacement(geometry, start, v, sum);
    while (links[2 * v] === 2) {
      edge = (links[2 * v + 1] ^ edge) >>> 0; // >>> 0: ids ≥ 2^31 stay unsigned
      const w = (sources[edge] ^ targets[edge] ^ v) >>> 0;
      length += lengths[edge];
      edges++;
      if (periodic) {
        displacement(geometry, v, w, step);
        for (let k = 0; k < dim; k++) sum[k] += step[k];
      }
      v = w;
    }
    pending[edge] = 0; // the other end edge: this branch is done
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
