// The smallest core distance² under every child of every record (mutual reachability pruning), bottom-up with no
// hand-off through plain memory: each thread starts at a leaf and climbs; at each internal node it swaps its value
// into that node's slot with one atomicExchange. The first to arrive finds the sentinel and stops; the second
// receives its sibling's value through the same atomic word (single-location coherence holds under WebGPU's relaxed
// atomics), combines, and climbs on. Values are f32 bit patterns of non-negative floats, so min works on u32.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> core2: array<f32>;
@group(0) @binding(2) var<storage, read> parents: array<u32>;
// One slot per record, initialised to NONE (the sentinel) before this dispatch.
@group(0) @binding(3) var<storage, read_write> arrive: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> minCore2: array<vec2f>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.n) { return; }
  var v = bitcast<u32>(core2[j]);
  var node = u.n - 1u + j; // unified index of leaf j
  loop {
    let p = parents[node];
    let rec = p >> 1u;
    minCore2[rec][p & 1u] = bitcast<f32>(v);
    if (rec == u.n - 1u) { break; } // the header: node was the root
    let other = atomicExchange(&arrive[rec], v);
    if (other == NONE) { break; }
    v = min(v, other);
    node = rec;
  }
}
