// Included by the kernels that append with tile appends and subgroups (populate_csr, filter), after graph/push.
// HOT_SETS = 1 (tile appends' push loops, in workgroup-uniform control flow): the subgroup records, for the
// smallest set c that one of its entries (p, q) touches — late rounds' giant sets have small roots, since the
// smaller root wins every union — the lightest of those entries once at c, instead of one record_min per entry on
// the same address. Returns which endpoints the caller still records itself: x for p, y for q.
fn hot_record(has: bool, p: u32, q: u32, key: u32, id: u32) -> vec2<bool> {
  if (HOT_SETS == 0u) { return vec2<bool>(true, true); }
  let c = subgroupMin(select(NONE, min(p, q), has));
  let touches = has && (p == c || q == c);
  let k = subgroupMin(select(NONE, key, touches));
  let i = subgroupMin(select(NONE, id, touches && key == k));
  let first = subgroupElect();
  if (first && c != NONE) { record_min(c, k, i); }
  return vec2<bool>(!(touches && p == c), !(touches && q == c));
}
