// Round 1's rule for one edge of a phase, shared by graph/populate_edges.wgsl, graph/populate_csr.wgsl's plain
// entries and their split twins (graph/split_populate_*.wgsl; issue 19's review: one copy): an edge (s, t) with
// weight e_w[i] is skipped where it is a self loop or outside the phase; else its ends are the endpoints themselves
// (the light and unfiltered phases start from singletons: no find), or in the heavy phase their sets' roots
// (uf_find of the kernel's union-find), and it is kept where they differ. Answers (p, q, weight key, kept ? 1 : 0).
// The including kernel declares `e_w` (the weights' raw bits; `i` indexes it as bound) and a `uf_find`; the weight
// is read only for a non-loop, as before the fold.

fn round1_edge(s: u32, t: u32, i: u32, threshold: u32) -> vec4u {
  if (s == t) { return vec4u(0u); }
  let key = weight_key(e_w[i]);
  if (!in_phase(key, threshold)) { return vec4u(0u, 0u, key, 0u); }
  var p = s;
  var q = t;
  if (P.phase == PHASE_HEAVY) {
    p = uf_find(s);
    q = uf_find(t);
  }
  return vec4u(p, q, key, select(0u, 1u, p != q));
}
