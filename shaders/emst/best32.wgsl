// The 32-bit fallback of best64.wgsl: entry `key` takes the per-component minimum key (the .y word of best), then,
// in a later dispatch, entry `lo` the minimum min-index among the candidates with that key (the .x word).
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> cand: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> best: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> order: array<u32>;
// The round's holders of a candidate (emst/holders.wgsl).
@group(0) @binding(5) var<storage, read> activeList: array<u32>;
@group(0) @binding(6) var<storage, read> activeCount: array<u32>;

@compute @workgroup_size(WG)
fn key(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
       @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let end = holder_count();
  for (var t = thread_index(wid, nwg, lid); t < end; t += grid_threads(nwg)) {
    let j = holder_at(t);
    let c = cand[j];
    if (c.x == NONE) { continue; }
    atomicMin(&best[2u * label[j] + 1u], c.x);
  }
}

@compute @workgroup_size(WG)
fn lo(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
      @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let end = holder_count();
  for (var t = thread_index(wid, nwg, lid); t < end; t += grid_threads(nwg)) {
    let j = holder_at(t);
    let c = cand[j];
    if (c.x == NONE) { continue; }
    let comp = label[j];
    if (atomicLoad(&best[2u * comp + 1u]) == c.x) {
      atomicMin(&best[2u * comp], min(order[j], order[c.y]));
    }
  }
}
