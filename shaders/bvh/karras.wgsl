// Karras 2012, "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees" (HPG'12, §3–4,
// Fig. 4): one thread per internal node finds, independently of every other node, its direction, the far end of
// its range and its split from δ, the common prefix length of the sorted keys; keys are augmented with their
// position so duplicate codes separate (§4). CPU twin: src/bvh/karras.cpu.ts; layout: src/bvh/layout.ts.
// Thread 0 also writes the header record (n − 1) of links. The box words of each internal node the refit accumulates
// through atomics are zeroed: 0 is the identity of the refit's atomicMax (refit.wgsl, refit_chunk.wgsl); the refit
// stores every other box outright. Constants from src/bvh/karras.ts (KarrasZero): ZERO_CHUNK > 0, nodes whose range
// crosses a multiple of ZERO_CHUNK leaves (the chunked refit); else nodes of more than ZERO_DIRECT leaves (the
// direct scans; 1: every internal node). The header has no box (layout.ts). ZERO_BOXES = 0: the boxes are not
// bound (their accessor does nothing) and the host cleared every internal record instead (src/bvh/karras.ts).
//
// Every array is reached through accessors the composer generates with their bindings from @binding(1) on (host
// side: src/bvh/karras.ts; src/gpu/bigarray.ts): codes_get (vec2u), links_set (vec2u), ranges_set (u32: the range end other than the node, bvh/range.wgsl),
// parents_set (u32) and boxes_set (u32 words): each array whole, or in parts where it exceeds one binding.

struct KarrasParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> u: KarrasParams;

const NONE: u32 = 0xffffffffu;

// The code of the thread's node i, read once (every δ below is δ(i, ·)).
var<private> code_i: vec2u;

// δ(i, j): common prefix length of (code_i, i) and (code_j, j); −1 when j is outside [0, n).
fn delta(i: i32, j: i32) -> i32 {
  if (j < 0 || j >= i32(u.n)) { return -1; }
  let x = code_i ^ codes_get(u32(j));
  if (x.y != 0u) { return i32(countLeadingZeros(x.y)); }
  if (x.x != 0u) { return 32 + i32(countLeadingZeros(x.x)); }
  return 64 + i32(countLeadingZeros(u32(i ^ j)));
}

// Zeroes internal node i's box record (BOXW words: 2·D f32 or D u16 pairs, bvh/box.wgsl).
fn zero_box(r: u32) {
  for (var w = 0u; w < BOXW; w++) { boxes_set(r * BOXW + w, 0u); }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let node = thread_index(wid, nwg, lid);
  let n = u.n;
  if (node == 0u) {
    links_set(n - 1u, vec2u(0u, NONE));
    parents_set(0u, (n - 1u) << 1u);
  }
  if (node + 1u >= n) { return; }
  let i = i32(node);
  code_i = codes_get(node);
  // Direction of the range, and a bound on its length by exponential search.
  let d = select(-1, 1, delta(i, i + 1) - delta(i, i - 1) > 0);
  let d_min = delta(i, i - d);
  var l_max = 2;
  while (delta(i, i + l_max * d) > d_min) { l_max = l_max * 2; }
  // The far end, by binary search.
  var l = 0;
  for (var t = l_max / 2; t >= 1; t = t / 2) {
    if (delta(i, i + (l + t) * d) > d_min) { l = l + t; }
  }
  let j = i + l * d;
  // The split: the last position sharing more than the node's prefix with i.
  let d_node = delta(i, j);
  var s = 0;
  var step = l;
  loop {
    step = (step + 1) / 2;
    if (delta(i, i + (s + step) * d) > d_node) { s = s + step; }
    if (step <= 1) { break; }
  }
  let split = i + s * d + min(d, 0);
  let first = u32(min(i, j));
  let last = u32(max(i, j));
  let gamma = u32(split);
  let left = select(gamma, n - 1u + gamma, first == gamma);
  let right = select(gamma + 1u, n + gamma, last == gamma + 1u);
  links_set(node, vec2u(left, right));
  ranges_set(node, range_other(node, first, last));
  parents_set(left, node << 1u);
  parents_set(right, (node << 1u) | 1u);
  let atomic_refit = select(last - first >= ZERO_DIRECT, first / max(ZERO_CHUNK, 1u) != last / max(ZERO_CHUNK, 1u),
                            ZERO_CHUNK > 0u);
  if (atomic_refit && ZERO_BOXES != 0u) { zero_box(node); }
}
