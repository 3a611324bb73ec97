// The find of the split kernels that only find (populate, filter), as graph/parent_ro.wgsl's: no union runs during
// their dispatches, so the parents are bound read-only (`parent`, a plain vertex array: bigarray.ts's parent_get)
// and walked without path halving — cacheable loads instead of atomics; the worklist's representatives (implicit
// path compression) keep the walks short. graph/split_uf.wgsl is the atomic union-find of the other kernels.

// The root of x's set (parents strictly decrease along every path: unionfind/unionfind.wgsl's invariant).
fn uf_find(x0: u32) -> u32 {
  var x = x0;
  loop {
    let p = parent_get(x);
    if (p == x) { return x; }
    x = p;
  }
}
