// The points holding a candidate this round, for the per-component minima (best64, best32, bestmax, merge) when
// HOLDERS = 1 (boruvka.ts, RoundPasses.holders): the points emst/active.wgsl listed for the traversal,
// activeList[0 … A) with A = activeCount[0], then those that kept last round's candidate, listed from the back,
// activeList[n − 1 − k] for k < K = activeCount[2]. Every point with a candidate after the traversal is one of them
// (active.wgsl sets the others' candidates to NONE), so the minima come out the same as over all n points. With
// u.skip = 0 there is no list: every point. The includer declares `activeList` and `activeCount` (read).

// 1: the per-component minima run over the holders only (set per pipeline).
override HOLDERS: u32 = 0u;

// How many items the minima run over: n (HOLDERS = 0 or u.skip = 0), else the holders.
fn holder_count() -> u32 {
  if (HOLDERS == 0u || u.skip == 0u) { return u.n; }
  return activeCount[0] + activeCount[2];
}

// Item t's point (t < holder_count()): t itself, or the t-th holder.
fn holder_at(t: u32) -> u32 {
  if (HOLDERS == 0u || u.skip == 0u) { return t; }
  let a = activeCount[0];
  if (t < a) { return activeList[t]; }
  return activeList[u.n - 1u - (t - a)];
}
