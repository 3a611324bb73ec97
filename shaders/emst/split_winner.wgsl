// The winner test of emst/merge.wgsl over one window of points (issue 19; src/emst/roundsplit.ts), a pass of its
// own so that split_merge.wgsl binds neither best nor bestMax (with them, at 6·10^8 points, the merge's parts would
// take 17 storage buffers): win[t] = 1 where point j = first + t holds its component's winning edge — its candidate's
// key and min index are the component's best, its max index the component's best max — else 0. `cand` and `win` (in
// the changes buffer, free from the search to the next round's changes) are the window's ranges; label, order,
// bestMax and best through the accessors src/gpu/bigarray.ts generates from binding 3 on (whole, or in parts).
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> cand: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> win: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let j = u.first + t;
    let c = cand[t];
    var w = 0u;
    if (c.x != NONE) {
      let comp = label_get(j);
      let a = order_get(j);
      let o = order_get(c.y);
      if (best_get(2u * comp + 1u) == c.x && best_get(2u * comp) == min(a, o) && ~bestMax_get(comp) == max(a, o)) {
        w = 1u;
      }
    }
    win[t] = w;
  }
}
