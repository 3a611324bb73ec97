// The per-set lightest edge as one 64-bit minimum (feature 'atomic-vec2u-min-max'): binding 3 holds one
// atomic<vec2u> per vertex, the packed record
//   | y: 32 bits weight key (high word) | x: 32 bits edge id (low word) |
// so atomicStoreMin keeps the smallest (weight key, edge id): ECL-MST's 64-bit atomicMin (seed 000, §3.2).
// Empty = (NONE, NONE). Alternative to min32.wgsl; the including kernel needs `enable atomic_vec2u_min_max;`.
//
// WGSL has no atomicLoad on atomic<vec2u>, so ECL-MST's "atomic guard" (read the record, skip the atomic when
// it is already lighter; Table 5 of the paper: 1.27× without it) reads binding 8 instead: the smallest key seen
// this round per set. Where it is below our key, some lighter edge is recorded (or will be) and ours cannot win.
// Without the guard, a set touched by millions of edges (the giant component of the heavy phase) serialises
// millions of atomics on one address.
//
// Emptying the guards between rounds (GUARD_TAGGED = 0): select.wgsl writes NONE to the guard words it used,
// two scattered stores per worklist entry and round. Tagged (GUARD_TAGGED = 1): no emptying; a guard word is
//   | 6 bits round tag P.guardTag | 26 bits weight key >> 6 |
// and the tag falls from round to round, so a word left by an earlier round is above every word of this round
// and never rejects. Important! A guard only ever rejects a key strictly above some key recorded this round
// (truncated keys compare strictly less only where the keys do), so it never drops the set's lightest edge;
// equal truncated keys fall through to the 64-bit minimum, which decides exactly.

@group(0) @binding(3) var<storage, read_write> g_min: array<atomic<vec2u>>;
@group(0) @binding(8) var<storage, read_write> g_guard: array<atomic<u32>>;

fn guard_word(key: u32) -> u32 {
  if (GUARD_TAGGED == 0u) { return key; }
  return (P.guardTag << 26u) | (key >> 6u);
}

fn record_min(s: u32, key: u32, id: u32) {
  let mine = guard_word(key);
  let seen = atomicLoad(&g_guard[s]);
  if (seen < mine) { return; }
  if (seen > mine) { atomicMin(&g_guard[s], mine); }
  atomicStoreMin(&g_min[s], vec2u(id, key));
}

// A row's lightest edge from populate_csr.wgsl's row minima (round 1 of a phase from singletons: no other
// writer records at this vertex in the dispatch but the tiles sharing the row, so no guard).
fn record_row_min(s: u32, key: u32, id: u32) {
  atomicStoreMin(&g_min[s], vec2u(id, key));
}
