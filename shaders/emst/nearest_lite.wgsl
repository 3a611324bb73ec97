// emst/nearest.wgsl for devices that bind at most 10 storage buffers per shader stage (browsers: Chrome's limit):
// the same traversal (emst/traverse.wgsl) for every point, without skipping bounded points (no pointBound, no
// active list) and with the box array in one binding (bvh/boxread1.wgsl). Same candidates, more traversals.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> core2: array<f32>;
@group(0) @binding(3) var<storage, read> order: array<u32>;
@group(0) @binding(4) var<storage, read> links: array<vec4u>;
@group(0) @binding(5) var<storage, read> boxes0: array<f32>;
@group(0) @binding(6) var<storage, read> childLabel: array<vec2u>;
@group(0) @binding(7) var<storage, read> label: array<u32>;
@group(0) @binding(8) var<storage, read> ub: array<u32>;
@group(0) @binding(9) var<storage, read> minCore2: array<vec2f>;
@group(0) @binding(10) var<storage, read_write> cand: array<vec2u>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.n) { return; }
  let found = nearest_of(j);
  cand[j] = vec2u(found.key, found.other);
}
