// Workgroup-wide exclusive scan of one u32 per invocation (wrapping add), with subgroup operations: a
// subgroup scan, the subgroup totals through workgroup memory, then every subgroup scans those totals itself
// (no second barrier round and no idle threads). Same interface as scan_wg_shared.wgsl.
//
// Important! Assumes subgroup k of a 1D workgroup holds invocations k·S … k·S + S − 1 in subgroup
// invocation order (S = subgroup size), as every driver we know lays them out; the H100 run of the GPU
// test suite checks it (a different layout would scramble the scans there).

struct WgScan {
  /** Sum of x over the invocations before this one. */
  exclusive: u32,
  /** Sum of x over the workgroup. */
  total: u32,
}

var<workgroup> wg_sg_totals: array<u32, WG>;

fn wg_exclusive_scan(lid: u32, x: u32) -> WgScan {
  // subgroup_size without the builtin parameter: every invocation of the subgroup is active here.
  let sg_size = subgroupAdd(1u);
  let lane = subgroupExclusiveAdd(1u);
  let sg = lid / sg_size;
  let incl = subgroupInclusiveAdd(x);
  let sg_total = subgroupAdd(x);
  if (lane == 0u) {
    wg_sg_totals[sg] = sg_total;
  }
  workgroupBarrier();
  let n_sg = (WG + sg_size - 1u) / sg_size;
  var carry = 0u;
  var before = 0u;
  for (var c = 0u; c < n_sg; c += sg_size) {
    let k = c + lane;
    let v = select(0u, wg_sg_totals[min(k, WG - 1u)], k < n_sg);
    let e = subgroupShuffle(subgroupExclusiveAdd(v), sg % sg_size);
    if (sg >= c && sg < c + sg_size) {
      before = carry + e;
    }
    carry += subgroupAdd(v);
  }
  workgroupBarrier();
  return WgScan(before + incl - x, carry);
}
