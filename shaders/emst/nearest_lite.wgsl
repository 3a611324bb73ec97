// emst/nearest.wgsl for devices that bind at most 10 storage buffers per shader stage (browsers: Chrome's limit):
// the same traversal (emst/traverse.wgsl) for every point, without skipping bounded points (no pointBound, no
// active list) and with the box array in one binding (bvh/boxread1.wgsl). Same candidates, more traversals.
// Bindings 0–10 are declared by emst/traverse.wgsl; this kernel has no others.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl). A fixed grid strides over the points (direct dispatch).
  if (label[u.n] != 0u) { return; }
  let stride = nwg.x * nwg.y * WG;
  for (var j = thread_index(wid, nwg, lid); j < u.n; j += stride) {
    let found = nearest_of(j);
    cand[j] = vec2u(found.key, found.other);
  }
}
