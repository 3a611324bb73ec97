// The per-set lightest edge without 64-bit atomics, in two passes over the worklist: this module's record_min
// keeps the smallest weight key (word 2s + 1, the same place as the high word of min64.wgsl's record), and the
// next dispatch (min_ids.wgsl) keeps the smallest edge id among the edges with that key (word 2s). Empty =
// (NONE, NONE). The load before atomicMin is ECL-MST's "atomic guard" (seed 000, Table 5): most edges lose.

@group(0) @binding(3) var<storage, read_write> g_min: array<atomic<u32>>;

fn record_min(s: u32, key: u32, id: u32) {
  let a = 2u * s + 1u;
  if (atomicLoad(&g_min[a]) > key) { atomicMin(&g_min[a], key); }
}

// populate_csr.wgsl's row minima need 64-bit records (ROW_MINIMA = 0 with this module); defined so it compiles.
fn record_row_min(s: u32, key: u32, id: u32) {
  record_min(s, key, id);
}
