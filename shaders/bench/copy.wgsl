// The bandwidth baseline: a plain copy, one vec4<u32> per thread (the "plain u32 copy" figures compare against).
struct Params { count4: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4u>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4u>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < u.count4) { dst[i] = src[i]; }
}
