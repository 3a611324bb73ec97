// Workgroup-wide reduction (OP, TYPE of reduce.wgsl) with subgroup operations: a subgroup reduction, the
// subgroup results through workgroup memory, then every subgroup reduces those itself. Same interface as
// reduce_wg_shared.wgsl. The order of a reduction does not matter for min/max and u32 sums, so nothing here
// depends on how invocations are laid out in subgroups beyond lid / S naming each subgroup once.

var<workgroup> wg_red: array<u32, WG>;

fn sg_reduce(x: u32) -> u32 {
  if (F32) {
    let f = bitcast<f32>(x);
    if (OP == OP_SUM) {
      return bitcast<u32>(subgroupAdd(f));
    }
    if (OP == OP_MIN) {
      return bitcast<u32>(subgroupMin(f));
    }
    return bitcast<u32>(subgroupMax(f));
  }
  if (OP == OP_SUM) {
    return subgroupAdd(x);
  }
  if (OP == OP_MIN) {
    return subgroupMin(x);
  }
  return subgroupMax(x);
}

fn wg_reduce(lid: u32, x: u32) -> u32 {
  let sg_size = subgroupAdd(1u);
  let lane = subgroupExclusiveAdd(1u);
  let r = sg_reduce(x);
  if (lane == 0u) {
    wg_red[lid / sg_size] = r;
  }
  workgroupBarrier();
  let n_sg = (WG + sg_size - 1u) / sg_size;
  var acc = identity();
  for (var k = lane; k < n_sg; k += sg_size) {
    acc = combine(acc, wg_red[k]);
  }
  return sg_reduce(acc);
}
