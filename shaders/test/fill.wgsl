// A test-only kernel: out[i] = i * u.mul + u.add for i < u.count.
struct Params { count: u32, mul: u32, add: u32, pad: u32 }
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < u.count) { out[i] = i * u.mul + u.add; }
}
