// Worklist appends for the kernels that produce worklists (populate_*.wgsl, filter.wgsl). Included after
// graph/common and one of graph/min64, graph/min32 (which define record_min); the kernel declares wl_out.

// Appends the worklist entry (p, q, id) at `at` of wl_out and records the edge in both sets' minima.
// Important! Entries hold set representatives (ECL-MST's implicit path compression): the next round's finds
// start from them.
fn push_edge(at: u32, p: u32, q: u32, key: u32, id: u32) {
  if (at >= P.cap) {
    atomicStore(&g_state[ST_OVERFLOW], 1u);
    return;
  }
  wl_out[wl_word(at, 0u)] = p;
  wl_out[wl_word(at, 1u)] = q;
  wl_out[wl_word(at, 2u)] = id;
  record_min(p, key, id);
  record_min(q, key, id);
}

// push_edge with the records at p (rec.x) and q (rec.y) optional (graph/hot_sg's hot_record made them).
fn push_edge_rec(at: u32, p: u32, q: u32, key: u32, id: u32, rec: vec2<bool>) {
  if (at >= P.cap) {
    atomicStore(&g_state[ST_OVERFLOW], 1u);
    return;
  }
  wl_out[wl_word(at, 0u)] = p;
  wl_out[wl_word(at, 1u)] = q;
  wl_out[wl_word(at, 2u)] = id;
  if (rec.x) { record_min(p, key, id); }
  if (rec.y) { record_min(q, key, id); }
}

// Appends the entry without recording it (populate_csr.wgsl's row minima record each row's lightest edge
// themselves).
fn push_entry(at: u32, p: u32, q: u32, id: u32) {
  if (at >= P.cap) {
    atomicStore(&g_state[ST_OVERFLOW], 1u);
    return;
  }
  wl_out[wl_word(at, 0u)] = p;
  wl_out[wl_word(at, 1u)] = q;
  wl_out[wl_word(at, 2u)] = id;
}
