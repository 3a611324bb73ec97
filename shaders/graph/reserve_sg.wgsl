// Worklist / forest slot reservation with subgroup operations (feature 'subgroups'; the kernel enables
// `subgroups`): one global atomicAdd per subgroup and no workgroup barrier. Same contract as reserve_wg.wgsl:
// call in workgroup-uniform control flow; returns the slot, or NONE where !want.

fn wg_reserve(want: bool, lid: u32, slot: u32) -> u32 {
  let w = select(0u, 1u, want);
  let rank = subgroupExclusiveAdd(w);
  let total = subgroupAdd(w);
  var base = 0u;
  if (subgroupElect() && total > 0u) { base = atomicAdd(&g_state[slot], total); }
  base = subgroupBroadcastFirst(base);
  if (!want) { return NONE; }
  return base + rank;
}
