// What both graph-MSF paths share (issue 19's review: one copy instead of two): the weight keys, the phases, the
// state words every kernel of either path uses, and the workgroup-uniform count. Included after common/grid and
// before graph/common (the fast path, src/graph/eclmst.ts) or graph/split_common (arrays above one binding,
// src/graph/eclsplit.ts); each of those declares its own uniform block `P` (in_phase reads P.phase) and bindings 0
// (parameters) and 1 (the state g_state).

// The weight type: 0 = u32, 1 = i32, 2 = f32 (weights are bound as their raw 32 bits).
override WEIGHT_KIND: u32 = 0u;

// "No edge": the value of an empty minimum record, and never a valid edge id (ids are < 2^32 − 1).
const NONE: u32 = 0xffffffffu;

// Phases: all edges (no filtering), light edges (key <= threshold), heavy edges (key > threshold).
const PHASE_ALL: u32 = 0u;
const PHASE_LIGHT: u32 = 1u;
const PHASE_HEAVY: u32 = 2u;

// State words (g_state) of both paths: the forest's edge count, the filtering threshold (a weight key), the
// overflow flag (a worklist or the forest was full; never set by a correct run), and from ST_STATS per phase p and
// round r the worklist size after round r's filter: word 8 + 64 p + r (graph/common.wgsl and
// graph/split_common.wgsl list the rest).
const ST_FOREST: u32 = 2u;
const ST_THRESHOLD: u32 = 3u;
const ST_OVERFLOW: u32 = 4u;
const ST_STATS: u32 = 8u;

// The order-preserving map of src/graph/keys.ts: comparing keys as u32 orders the weights as numbers.
fn weight_key(bits: u32) -> u32 {
  if (WEIGHT_KIND == 1u) { return bits ^ 0x80000000u; }
  if (WEIGHT_KIND == 2u) {
    if (bits == 0x80000000u) { return 0x80000000u; } // −0 sorts as +0
    if ((bits & 0x80000000u) != 0u) { return ~bits; }
    return bits | 0x80000000u;
  }
  return bits;
}

// Whether an edge of this key belongs to the current phase.
fn in_phase(key: u32, threshold: u32) -> bool {
  if (P.phase == PHASE_LIGHT) { return key <= threshold; }
  if (P.phase == PHASE_HEAVY) { return key > threshold; }
  return true;
}

var<workgroup> wg_n: u32;

// g_state[slot], read once and made workgroup-uniform (it bounds loops that contain barriers).
fn uniform_count(lid: u32, slot: u32) -> u32 {
  if (lid == 0u) { wg_n = atomicLoad(&g_state[slot]); }
  return workgroupUniformLoad(&wg_n);
}
