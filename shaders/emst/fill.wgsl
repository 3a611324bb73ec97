// out[i] = u.value for i < u.count.
struct FillParams { count: u32, value: u32, p0: u32, p1: u32 }
@group(0) @binding(0) var<uniform> f: FillParams;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < f.count) { out[i] = f.value; }
}
