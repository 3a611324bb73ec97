// The points holding a candidate this round, for the per-component minima (best64, best32, bestmax, merge) when
// HOLDERS = 1 (boruvka.ts, RoundPasses.holders): the points emst/active.wgsl listed for the traversal,
// activeList[0 … A) with A = activeCount[0], then those that kept last round's candidate, listed from the back,
// activeList[n − 1 − k] for k < K = activeCount[2]. Every point with a candidate after the traversal is one of them
// (active.wgsl sets the others' candidates to NONE), so the minima come out the same as over all n points. With
// u.skip = 0 there is no list: every point. The includer declares `activeList` and `activeCount` (read).

// 1: the per-component minima run over the holders only (set per pipeline).
override HOLDERS: u32 = 0u;

// The point of thread t: t itself (HOLDERS = 0 or u.skip = 0), else the t-th holder; NONE past the end.
fn holder_of(t: u32) -> u32 {
  if (HOLDERS == 0u || u.skip == 0u) { return t; }
  let a = activeCount[0];
  if (t < a) { return activeList[t]; }
  let k = t - a;
  if (k < activeCount[2]) { return activeList[u.n - 1u - k]; }
  return NONE;
}
