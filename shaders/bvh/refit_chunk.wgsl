// Bottom-up refit of the boxes (and minIndex) of a Karras hierarchy by chunks of leaves: the chunked variant of
// refit.wgsl, same inputs and outputs bit for bit. CPU twin: src/bvh/refit.cpu.ts; host: src/bvh/refit.ts.
//
// Workgroup g takes the leaves [g·WG, (g + 1)·WG), one per thread. Every internal node whose leaf range lies inside
// the chunk is refitted in workgroup memory, bottom-up in rounds separated by barriers: a child arriving at its
// parent adds its box to the parent's slot by atomicMax (minima as ~order(x), maxima as order(x), minIndex as
// ~index, as in refit.wgsl) and counts itself in; after the round's barrier the second arrival reads the whole box,
// stores it and climbs on. Important! This hand-off ("the second child reads what the first wrote") is legal only
// because a workgroupBarrier orders workgroup memory within one workgroup (DESIGN.md: never across workgroups). A
// node whose parent's range leaves the chunk is a top: after the rounds its thread carries it up through global
// atomics only, exactly as refit.wgsl carries its directly scanned nodes, so every node above the chunks receives
// its two contributions through atomicMax on words karras.wgsl (boxes) and refit.ts (mins) zeroed.
//
// Slots: Karras's internal node i has i at one end of its range [first, last] (karras.wgsl), so a node inside the
// chunk has its index inside too, and slot i − g·WG is its own. Each read of an earlier dispatch's output (sorted
// points, order, parents, ranges) is a plain read; boxes and minIndex words of nodes inside a chunk have one writer.
// The rounds touch workgroup memory only: the ranges and parent words of internal nodes first … first + WG − 1 are
// read into it first (an internal node outside that window is outside the chunk).
//
// Every array is reached through the accessors of refit.wgsl (src/bvh/refit.ts; src/gpu/bigarray.ts).
struct RefitParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> u: RefitParams;

const C: u32 = 2u * D + 1u;

// Per internal node of the chunk: its box and ~minIndex as the atomics accumulate them, and its arrivals.
var<workgroup> s_acc: array<atomic<u32>, WG * C>;
var<workgroup> s_arrived: array<atomic<u32>, WG>;
// The range and parent word of internal node first + k (Karras's output for the chunk, read once, coalesced).
var<workgroup> s_range: array<vec2u, WG>;
var<workgroup> s_parent: array<u32, WG>;
// Threads that completed a node in this round (so climb in the next), and its copy read uniformly.
var<workgroup> s_live: atomic<u32>;
var<workgroup> s_go: u32;

// A thread's state: nothing to do; holding a complete node whose parent comes next; the second arrival at `node`,
// which completes it after the barrier; holding a complete node whose parent's range leaves the chunk.
const IDLE: u32 = 0u;
const CLIMB: u32 = 1u;
const WAIT: u32 = 2u;
const TOP: u32 = 3u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let n = u.n;
  let header = n - 1u;
  let first = group_index(wid, nwg) * WG;
  let last = min(first + WG, n) - 1u;
  let j = first + lid;
  for (var i = lid; i < WG * C; i += WG) { atomicStore(&s_acc[i], 0u); }
  atomicStore(&s_arrived[lid], 0u);
  if (lid == 0u) { atomicStore(&s_live, 0u); }
  if (j + 1u < n) {
    s_range[lid] = node_range(j, ranges_get(j));
    s_parent[lid] = parents_get(j);
  }
  // v: the held node's box and ~minIndex; ps: its parent word (parent record << 1 | side).
  var v: array<u32, C>;
  var state = IDLE;
  var ps = 0u;
  var node = 0u;
  if (j < n) {
    // Leaf j: box = point, minIndex = original index; its minIndex slot in its parent's record has one writer.
    for (var a = 0u; a < D; a++) {
      let o = f32_order(sorted_get(j * D + a));
      v[a] = ~o;
      v[D + a] = o;
    }
    v[2u * D] = ~order_get(j);
    ps = parents_get(n - 1u + j);
    mins_store(ps, ~v[2u * D]);
    state = CLIMB;
  }
  workgroupBarrier();
  loop {
    if (state == CLIMB) {
      let p = ps >> 1u;
      if (p == header) {
        state = IDLE;
      } else if (p < first || p > last) {
        // A node of the chunk has its index in the chunk (above): this parent's range leaves it.
        state = TOP;
      } else {
        let r = s_range[p - first];
        if (r.x < first || r.y > last) {
          state = TOP;
        } else {
          let base = (p - first) * C;
          for (var c = 0u; c < C; c++) { atomicMax(&s_acc[base + c], v[c]); }
          if (atomicAdd(&s_arrived[p - first], 1u) == 0u) {
            state = IDLE;
          } else {
            state = WAIT;
            node = p;
          }
        }
      }
    }
    workgroupBarrier();
    if (state == WAIT) {
      // Both children's atomicMax came before the barrier: the slot holds the node's box.
      let base = (node - first) * C;
      for (var c = 0u; c < C; c++) { v[c] = atomicLoad(&s_acc[base + c]); }
      let rb = node * 2u * D;
      for (var a = 0u; a < D; a++) {
        boxes_store(rb + a, f32_unorder(~v[a]));
        boxes_store(rb + D + a, f32_unorder(v[D + a]));
      }
      ps = s_parent[node - first];
      mins_store(ps, ~v[2u * D]);
      state = CLIMB;
      atomicAdd(&s_live, 1u);
    }
    workgroupBarrier();
    if (lid == 0u) {
      s_go = atomicLoad(&s_live);
      atomicStore(&s_live, 0u);
    }
    if (workgroupUniformLoad(&s_go) == 0u) { break; }
  }
  if (state != TOP) { return; }
  // Above the chunk: the atomic walk of refit.wgsl from the parent of the held node.
  var own: array<bool, C>;
  for (var c = 0u; c < C; c++) { own[c] = true; }
  node = ps >> 1u;
  loop {
    if (node == header) { break; }
    let pp = parents_get(node);
    let rb = node * 2u * D;
    var owns_any = false;
    for (var c = 0u; c < 2u * D; c++) {
      if (!own[c]) { continue; }
      let old = boxes_max(rb + c, v[c]);
      if (old == 0u) { own[c] = false; continue; }
      v[c] = max(old, v[c]);
      boxes_store(rb + c, select(f32_unorder(v[c]), f32_unorder(~v[c]), c < D));
      owns_any = true;
    }
    if (own[2u * D]) {
      let w = pp;
      let old = mins_max(w, v[2u * D]);
      if (old == 0u) {
        own[2u * D] = false;
      } else {
        v[2u * D] = max(old, v[2u * D]);
        mins_store(w, ~v[2u * D]);
        owns_any = true;
      }
    }
    if (!owns_any) { break; }
    node = pp >> 1u;
  }
}
