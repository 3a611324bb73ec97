// Compaction of the points that must traverse this round (beyond the paper; the ablation is in bench/RESULTS.md):
// a point keeps last round's candidate while that candidate's other end is still in another component, and skips
// when its bound from earlier rounds exceeds its component's upper bound (both explained in nearest.wgsl). The rest
// are appended, in workgroup order, to `active`, and the traversal kernel — whose large private stack makes even
// idle threads costly — takes only those from it. With HOLDERS = 1 (boruvka.ts, RoundPasses.holders) the points
// that keep their candidate are listed too, from the back (activeList[n − 1 − k], counted in activeCount[2]), so that
// the per-component minima run over the points holding a candidate only (emst/holders.wgsl). Both lists fit in the
// n entries: a point is listed at most once.
override HOLDERS: u32 = 0u;
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> ub: array<u32>;
@group(0) @binding(3) var<storage, read> pointBound: array<u32>;
@group(0) @binding(4) var<storage, read_write> cand: array<vec2u>;
@group(0) @binding(5) var<storage, read_write> activeList: array<u32>;
@group(0) @binding(6) var<storage, read_write> activeCount: array<atomic<u32>>;

var<workgroup> wgCount: atomic<u32>;
var<workgroup> wgBase: u32;
var<workgroup> wgDone: u32;
var<workgroup> wgKept: atomic<u32>;
var<workgroup> wgKeptBase: u32;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl); read once, uniformly, as barriers follow.
  if (lid == 0u) { wgDone = label[u.n]; }
  if (workgroupUniformLoad(&wgDone) != 0u) { return; }
  // Tiles of WG points, striding by the grid (emst/common.wgsl, grid_threads).
  for (var base = group_index(wid, nwg) * WG; base < u.n; base += grid_threads(nwg)) {
    if (lid == 0u) {
      atomicStore(&wgCount, 0u);
      atomicStore(&wgKept, 0u);
    }
    workgroupBarrier();
    let j = base + lid;
    var needs = false;
    var kept = false;
    if (j < u.n) {
      let comp = label[j];
      let prev = cand[j];
      if (prev.x != NONE && label[prev.y] != comp) {
        kept = true; // keep the candidate
      } else {
        // Keys against keys, exactly (emst/common.wgsl, SLACK): the point's nearest other-component key is ≥ its
        // bound, so above the upper bound it cannot be its component's best edge, nor tie with it.
        if (pointBound[j] > ub[comp]) {
          cand[j] = vec2u(NONE, NONE);
        } else {
          needs = true;
        }
      }
    }
    var slot = 0u;
    var keptSlot = 0u;
    if (needs) { slot = atomicAdd(&wgCount, 1u); }
    if (HOLDERS != 0u && kept) { keptSlot = atomicAdd(&wgKept, 1u); }
    workgroupBarrier();
    if (lid == 0u) {
      wgBase = atomicAdd(&activeCount[0], atomicLoad(&wgCount));
      if (HOLDERS != 0u) { wgKeptBase = atomicAdd(&activeCount[2], atomicLoad(&wgKept)); }
    }
    workgroupBarrier();
    if (needs) { activeList[wgBase + slot] = j; }
    if (HOLDERS != 0u && kept) { activeList[u.n - 1u - (wgKeptBase + keptSlot)] = j; }
  }
}

