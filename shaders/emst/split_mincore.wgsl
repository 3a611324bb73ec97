// emst/mincore.wgsl with the BVH's parents and minCore2 in parts (issue 19; src/emst/roundsplit.ts): the smallest
// core distance² under every child of every record, bottom-up, each thread climbing from its leaf and meeting its
// sibling's value through one atomicExchange per internal node. parents_get (u32 per unified index) and
// minCore2_set (2 words per record: the f32 bits of the left and right child's minimum) are generated accessors;
// core2 and the arrival flags (4 B a point) are whole.
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> core2: array<f32>;
// One slot per record, initialised to NONE (the sentinel) before this dispatch.
@group(0) @binding(2) var<storage, read_write> arrive: array<atomic<u32>>;
// Bindings 3 … : parents' parts, then minCore2's (generated).

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.n) { return; }
  var v = bitcast<u32>(core2[j]);
  var node = u.n - 1u + j; // unified index of leaf j
  loop {
    let p = parents_get(node);
    let rec = p >> 1u;
    minCore2_set(2u * rec + (p & 1u), v);
    if (rec == u.n - 1u) { break; } // the header: node was the root
    let other = atomicExchange(&arrive[rec], v);
    if (other == NONE) { break; }
    v = min(v, other);
    node = rec;
  }
}
