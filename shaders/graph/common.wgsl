// Shared by every graph-MSF kernel (driven by src/graph/eclmst.ts; CPU twin src/graph/eclmst.cpu.ts).
// Included after common/grid and graph/base (the weight keys, phases, state words and uniform_count that the split
// path shares). Declares bindings 0 (parameters) and 1 (state); binding 2, the union-find's
// uf_parent, comes from graph/parent (read_write atomics, with unionfind/unionfind) or graph/parent_ro (read-only,
// for the kernels that only find: populate, filter); each kernel declares its own bindings from 3 on.

// min64.wgsl's guard keys: 0 = plain keys, emptied by select after every round; 1 = tagged with the round
// (guard_word below), never emptied.
override GUARD_TAGGED: u32 = 0u;
// filter.wgsl's emptying of the previous round's records: 0 = two scattered stores per entry; 1 = by fill where
// the round is large.
override FILL_RESETS: u32 = 0u;
// Worklist layout: 0 = interleaved (entry i at words 3i, 3i + 1, 3i + 2); 1 = split (p at i, q at cap + i, id at
// 2 cap + i), so a subgroup's loads and stores of each field are contiguous (4 sectors per 32 entries, not 12).
override WL_SPLIT: u32 = 0u;
// Tile appends' record of the subgroup's hottest set (graph/reserve_sg's hot_record): 0 = off, 1 = on.
override HOT_SETS: u32 = 0u;

// State words (g_state; graph/base.wgsl declares ST_*):
//   0, 1  worklist counters (round r appends to counter r % 2)
//   2     forest edge count
//   3     filtering threshold (a weight key)
//   4     overflow flag (a worklist or the forest was full; never set by a correct run)
//   8 …   per phase p and round r, the worklist size after round r's filter: word 8 + 64 p + r

struct GraphParams {
  // Vertices.
  n: u32,
  // Edge-id slots (edge-list length, or CSR entries).
  slots: u32,
  // Worklist capacity (entries of 3 u32).
  cap: u32,
  // PHASE_*.
  phase: u32,
  // The counter this dispatch reads (filter: its input; select: the one it zeroes for the next round).
  inSlot: u32,
  // The counter this dispatch appends to (populate, filter) or reads (minIds, select).
  outSlot: u32,
  // Where select records the round's worklist size: g_state[ST_STATS + statsAt].
  statsAt: u32,
  // Workgroups per grid dimension (select writes the next round's indirect arguments).
  maxDim: u32,
  // Forest capacity (numVertices − 1, at least 1).
  forestCap: u32,
  // Threshold sampling: how many samples, and which sorted sample is the threshold.
  samples: u32,
  pick: u32,
  // The round's tag for GUARD_TAGGED guard words: 63 − (32 · phase index + round − 1), so later rounds tag lower.
  guardTag: u32,
}

@group(0) @binding(0) var<uniform> P: GraphParams;
@group(0) @binding(1) var<storage, read_write> g_state: array<atomic<u32>>;

// The word of field k (0: p, 1: q, 2: edge id) of worklist entry i (WL_SPLIT above).
fn wl_word(i: u32, k: u32) -> u32 {
  if (WL_SPLIT == 1u) { return k * P.cap + i; }
  return 3u * i + k;
}
