// Per-component minimum of (key, min index) in one 64-bit atomicMin (.y = high word = key, .x = min index); the
// max index follows in bestmax.wgsl. Needs the `atomic-vec2u-min-max` feature; best32.wgsl is the fallback.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> cand: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> best: array<atomic<vec2u>>;
@group(0) @binding(4) var<storage, read> order: array<u32>;
// The round's holders of a candidate (emst/holders.wgsl).
@group(0) @binding(5) var<storage, read> activeList: array<u32>;
@group(0) @binding(6) var<storage, read> activeCount: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let end = holder_count();
  for (var t = thread_index(wid, nwg, lid); t < end; t += grid_threads(nwg)) {
    let j = holder_at(t);
    let c = cand[j];
    if (c.x == NONE) { continue; }
    atomicStoreMin(&best[label[j]], vec2u(min(order[j], order[c.y]), c.x));
  }
}

// Entry `grouped` (boruvka.ts, RoundPasses.groupMin): the same minima, with the offers to the component of the tile's
// first item folded in workgroup memory first — the smallest key, then the smallest min index among that key — and
// sent as one atomicStoreMin (late rounds: a tile's holders mostly share one large component). Minima in any order:
// the same best edges bit for bit.
var<workgroup> wgWord: u32;
var<workgroup> wgLabel: u32;
var<workgroup> wgKey: atomic<u32>;
var<workgroup> wgLo: atomic<u32>;

@compute @workgroup_size(WG)
fn grouped(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl); it and the item count read once, uniformly, as barriers follow.
  if (lid == 0u) { wgWord = label[u.n]; }
  if (workgroupUniformLoad(&wgWord) != 0u) { return; }
  if (lid == 0u) { wgWord = holder_count(); }
  let end = workgroupUniformLoad(&wgWord);
  // Tiles of WG items, striding by the grid (emst/common.wgsl, grid_threads).
  for (var base = group_index(wid, nwg) * WG; base < end; base += grid_threads(nwg)) {
    let t = base + lid;
    var comp = NONE;
    var key = NONE;
    var lo = NONE;
    if (t < end) {
      let j = holder_at(t);
      let c = cand[j];
      if (c.x != NONE) {
        comp = label[j];
        key = c.x;
        lo = min(order[j], order[c.y]);
      }
    }
    // Important! The previous tile's reads of the workgroup words are done before they are reset.
    workgroupBarrier();
    if (lid == 0u) {
      wgLabel = label[holder_at(base)];
      atomicStore(&wgKey, NONE);
      atomicStore(&wgLo, NONE);
    }
    workgroupBarrier();
    let mine = comp != NONE && comp == wgLabel;
    if (mine) {
      atomicMin(&wgKey, key);
    } else if (comp != NONE) {
      atomicStoreMin(&best[comp], vec2u(lo, key));
    }
    workgroupBarrier();
    if (mine && key == atomicLoad(&wgKey)) {
      atomicMin(&wgLo, lo);
    }
    workgroupBarrier();
    if (lid == 0u) {
      let k = atomicLoad(&wgKey);
      if (k != NONE) { atomicStoreMin(&best[wgLabel], vec2u(atomicLoad(&wgLo), k)); }
    }
  }
}
