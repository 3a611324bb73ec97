// Workgroup-wide reduction (OP, TYPE of reduce.wgsl) through workgroup memory only: a tree of log2(WG)
// steps, the fallback when the `subgroups` feature is absent. Same interface as reduce_wg_subgroup.wgsl.
// WG must be a power of two.

var<workgroup> wg_red: array<u32, WG>;

fn wg_reduce(lid: u32, x: u32) -> u32 {
  wg_red[lid] = x;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      wg_red[lid] = combine(wg_red[lid], wg_red[lid + s]);
    }
    workgroupBarrier();
  }
  return wg_red[0];
}
