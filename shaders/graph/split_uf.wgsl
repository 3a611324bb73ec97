// The union-find of unionfind/unionfind.wgsl (the same invariant, proof and rule: the smaller root wins, find
// halves paths) over parents bound in parts, through the accessors that src/gpu/bigarray.ts generates for the
// atomic array `parent`: parent_load, parent_min, parent_cas. Whole (one part), they index one binding directly.

fn uf_find(x0: u32) -> u32 {
  var x = x0;
  loop {
    let p = parent_load(x);
    if (p == x) { return x; }
    let g = parent_load(p);
    if (g == p) { return p; }
    // Path halving: x skips its parent. atomicMin, not a store: never replaces a shorter link by a longer one.
    _ = parent_min(x, g);
    x = g;
  }
}

fn uf_union(a: u32, b: u32) -> bool {
  var ra = a;
  var rb = b;
  loop {
    ra = uf_find(ra);
    rb = uf_find(rb);
    if (ra == rb) { return false; }
    let lo = min(ra, rb);
    let hi = max(ra, rb);
    // Important! Link only a root (expected value hi), and always larger under smaller.
    if (parent_cas(hi, hi, lo)) { return true; }
  }
}
