/**
 * Vertex-id compaction (issue 15, §4.2): memory follows the edges a graph holds, never the vertex count it claims.
 * An edge list `0 1 1` / `0 4000000000 1` names 4·10^9 + 1 vertices; both backends hold per-vertex state (the
 * union-find, the GPU's minimum records), 15.7 GB before this module. A vertex that no edge touches is a component
 * of its own and needs no state, so when `numVertices` exceeds what the edges can touch (2 per edge, plus slack),
 * the backends run on the touched vertices only, renumbered 0 … k − 1, and the result is mapped back.
 *
 * Important! The renumbering is monotone (the touched ids sorted): the smaller endpoint stays the smaller, the
 * smallest vertex of a component stays its label, and the forest (chosen by (weight, edge id), never by vertex
 * ids) is the same edge for edge. Only edge lists are compacted: a CSR holds numVertices + 1 offsets already.
 */
import { InputError } from '../errors.js';
import type { GraphMstResult } from './types.js';
import type { NormalGraph } from './validate.js';

/** Vertices that no edge needs to touch before ids are compacted: small graphs keep their ids untouched. */
export const COMPACT_SLACK = 1 << 16;

/**
 * The most vertices a `labels` result may have when the graph was compacted: one u32 label per vertex, even an
 * isolated one, is memory the file does not hold (2^24 labels = 64 MiB; as JSON, about 150 MB of text).
 */
export const MAX_SPARSE_LABELS = 1 << 24;

export interface Compaction {
  /** The graph on touched vertices 0 … k − 1 (same edge ids, weights and order). */
  graph: NormalGraph;
  /** original[i]: the original id of compact vertex i (increasing). */
  original: Uint32Array;
}

/** Whether `g` claims more vertices than its edges can touch (2 per edge slot) by more than `COMPACT_SLACK`. */
function needsCompaction(g: NormalGraph): boolean {
  return g.kind === 'edges' && g.numVertices > 2 * g.idCount + COMPACT_SLACK;
}

/** The compacted graph, or null where `needsCompaction` says no. `labels`: whether labels will be asked for. */
export function compactVertices(g: NormalGraph, labels = false): Compaction | null {
  if (g.kind !== 'edges' || !needsCompaction(g)) return null;
  if (labels && g.numVertices > MAX_SPARSE_LABELS) {
    throw new InputError(
      `Expected numVertices ≤ ${MAX_SPARSE_LABELS} (2^24) when component labels are asked for and most vertices touch no ` +
        `edge, got numVertices = ${g.numVertices} with ${g.idCount} edge${g.idCount === 1 ? '' : 's'}: the labels would take ${gib(4 * g.numVertices)}. ` +
        `Leave labels off (every vertex that no edge touches is its own component) or renumber the vertices.`,
    );
  }
  const m = g.idCount;
  const all = new Uint32Array(2 * m);
  all.set(g.sources, 0);
  all.set(g.targets, m);
  all.sort();
  let k = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[k++] = all[i];
  const original = all.slice(0, k);
  const rank = (v: number): number => {
    let lo = 0,
      hi = k - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (original[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    sources[i] = rank(g.sources[i]);
    targets[i] = rank(g.targets[i]);
  }
  return { graph: { ...g, numVertices: k, sources, targets }, original };
}

/** The result on the compacted graph in the original ids and vertex count `numVertices`. */
export function expandResult(c: Compaction, r: GraphMstResult, numVertices: number): GraphMstResult {
  const { original } = c;
  const sources = r.sources.map((v) => original[v]);
  const targets = r.targets.map((v) => original[v]);
  const out: GraphMstResult = { ...r, sources, targets, components: numVertices - r.edgeIds.length };
  if (r.componentLabels) {
    const labels = new Uint32Array(numVertices);
    for (let v = 0; v < numVertices; v++) labels[v] = v;
    for (let i = 0; i < original.length; i++) labels[original[i]] = original[r.componentLabels[i]];
    out.componentLabels = labels;
  }
  return out;
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}
