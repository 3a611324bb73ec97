// Candidate lists from the BVH's k-NN search (src/emst/highdim.ts, the 'bvh' source): knn.wgsl writes original
// indices, the rounds want Morton positions. `rank` inverts the Morton order (rank[order[j]] = j), `convert` maps
// every list entry through it in place (NONE stays NONE). The CPU twin: ranksCpu in src/emst/highdim.cpu.ts.
struct RankParams {
  // Points (rank) or list entries (convert).
  count: u32,
  p0: u32,
  p1: u32,
  p2: u32,
}

@group(0) @binding(0) var<uniform> u: RankParams;
@group(0) @binding(1) var<storage, read> order: array<u32>;
@group(0) @binding(2) var<storage, read_write> rank: array<u32>;
@group(0) @binding(3) var<storage, read_write> lpos: array<u32>;

const NONE: u32 = 0xffffffffu;

@compute @workgroup_size(WG)
fn invert(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j < u.count) { rank[order[j]] = j; }
}

@compute @workgroup_size(WG)
fn convert(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.count) { return; }
  let o = lpos[i];
  if (o != NONE) { lpos[i] = rank[o]; }
}
