// Shared by the graph-MSF kernels on split arrays (src/graph/eclsplit.ts; issue 19), in place of graph/common.wgsl:
// the same weight keys, phases and state words (graph/base.wgsl, included before it, after common/grid), but a
// uniform block that carries the window or worklist segment a dispatch works on. Declares bindings 0 (parameters)
// and 1 (state); each kernel declares
// its windows from 2 on, and the vertex arrays (parent, records, forest, row starts) follow as src/gpu/bigarray.ts
// generates them: whole where they fit one binding, else in parts, read and written through accessors
// (`parent_load`, `keys_get`, …; graph/split_uf is the union-find over them).
//
// A worklist entry is one vec4u (p, q, edge id, weight key): the key travels with the entry, so that no kernel but
// populate reads the weights, and populate reads them in windows of edge slots (bound per dispatch).

// State words (g_state): graph/base.wgsl's 0 … 8 + 2·64 (forest count, threshold, overflow, per-round sizes,
// here summed over the segments), then the threshold's samples from ST_SAMPLES, then two worklist counters per
// segment (eclsplit.ts, counterWord).
const ST_SAMPLES: u32 = 136u;

struct SplitParams {
  // Vertices.
  n: u32,
  // PHASE_*.
  phase: u32,
  // populate: the window's first edge slot (its id) and its slots; init: the window's first vertex and its vertices.
  first: u32,
  count: u32,
  // The segment's worklist capacity (entries).
  cap: u32,
  // State words of the counters this dispatch reads (filter: its input; select: the one it zeroes for the next
  // round) and appends to (populate, filter) or reads (minIds, select).
  inSlot: u32,
  outSlot: u32,
  // Where select adds the segment's worklist size: g_state[ST_STATS + statsAt].
  statsAt: u32,
  // Forest capacity (numVertices − 1, at least 1).
  forestCap: u32,
  // Threshold sampling: how many samples, and which sorted sample is the threshold.
  samples: u32,
  pick: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> P: SplitParams;
@group(0) @binding(1) var<storage, read_write> g_state: array<atomic<u32>>;
