// The canonical edge list's (source, weight bits) pairs (canonical.wgsl's result in `keys`) split into two arrays,
// sources[j] = keys[j].x and weights[j] = keys[j].y (src/emst/canonical.ts, createCanonicalSplit): what the read-back
// copies straight into the caller's arrays, with no host pass to de-interleave them (CPU twin: readbackPass,
// src/emst/readback.threads.ts).
struct SplitParams { m: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> u: SplitParams;
@group(0) @binding(1) var<storage, read> keys: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> sources: array<u32>;
@group(0) @binding(3) var<storage, read_write> weights: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.m) { return; }
  let k = keys[j];
  sources[j] = k.x;
  weights[j] = k.y;
}
