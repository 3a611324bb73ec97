// Rows from Morton order to original order (issue 19; src/knn/knn.ts): where the k-NN's outputs are windowed
// (big arrays), the search writes row j for leaf j, and this kernel moves each row to row order[j], as the search
// writes it itself when everything fits one binding (knn.wgsl, MORTON_ROWS = 0). Its CPU twin is the row order of
// knn.cpu.ts (row i belongs to point i). One dispatch per (source window, destination window) pair: thread t of the
// source window copies its row when order[t] falls in the destination window. Rows are `width` u32 words (f32
// distances move as their bits).

struct PermuteParams { src_count: u32, dst_first: u32, dst_count: u32, width: u32 }
@group(0) @binding(0) var<uniform> u: PermuteParams;
// The source window's original indices (bvh::order) and rows.
@group(0) @binding(1) var<storage, read> order: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
// The destination window's rows, [dst_first, dst_first + dst_count).
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  if (t >= u.src_count) { return; }
  let o = order[t];
  if (o < u.dst_first || o - u.dst_first >= u.dst_count) { return; }
  let d = o - u.dst_first;
  for (var r = 0u; r < u.width; r++) { dst[d * u.width + r] = src[t * u.width + r]; }
}
