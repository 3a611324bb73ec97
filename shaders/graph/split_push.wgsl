// Worklist appends of the split kernels that produce worklists (split_populate_*, split_filter), and the first of
// the two 32-bit passes that record each set's lightest edge (as graph/min32.wgsl: the smallest key here, the
// smallest id among that key's edges in split_select.wgsl's minIds). The kernel declares wl_out (its segment); g_key
// is an atomic vertex array (bigarray.ts accessors).

// The smallest key seen this round at set s. The load first is ECL-MST's atomic guard: most edges lose.
fn record_key(s: u32, key: u32) {
  if (g_key_load(s) > key) { _ = g_key_min(s, key); }
}

// Appends (p, q, id, key) at `at` of the segment and records its key at both sets.
// Important! Entries hold set representatives (ECL-MST's implicit path compression).
fn push_entry(at: u32, p: u32, q: u32, id: u32, key: u32) {
  if (at >= P.cap) {
    atomicStore(&g_state[ST_OVERFLOW], 1u);
    return;
  }
  wl_out[at] = vec4u(p, q, id, key);
  record_key(p, key);
  record_key(q, key);
}
