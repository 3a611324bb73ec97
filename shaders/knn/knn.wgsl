// Exact k nearest neighbours of every point by BVH traversal. CPU twin (the algorithm is described there):
// src/knn/knn.cpu.ts; BVH layout: src/bvh/layout.ts; distance formula: distance.wgsl.
//
// One thread per query, queries in Morton order (thread t = leaf t), 32 threads per workgroup (faster than 64:
// bench/RESULTS.md). The radius starts at the k-th distance to the `window` Morton neighbours; then a stack-based,
// nearest-child-first descent from the header record, pruning by (distance, minIndex) against the current k-th
// (distance, index). No atomics, no inter-thread communication. k above KMAX runs in passes (src/knn/knn.ts): each
// finds the next k ≤ KMAX neighbours after the previous pass's last (floor). Constants: D (dimension), KMAX (list
// capacity, ≥ k), STACK (depth bound, layout.ts), ALL (1: write indices and distances, 0: write the k-th distance only),
// MORTON_ROWS (1: row j is leaf j's; 0: row i is point i's).
//
// Big arrays (issue 19; src/knn/knn.ts, src/gpu/bigarray.ts): the BVH's arrays are read through accessors the
// composer generates from @binding(3) on — points_get (f32 words), order_get, links_get and mins_get (vec2u: bvh/layout.ts,
// "Records"), boxes_get (u32
// words of either box format, bvh/boxget.wgsl) — each array whole (`points[i]`: the kernel of before) or in parts where it exceeds one binding. The
// output rows are a window: this dispatch searches the leaves [base, end) and, with Morton rows, row t − base of
// out_index / out_dist belongs to leaf t (base = 0 and end = n: one dispatch over every leaf, the fast path).

// one: 1.0 (distance.wgsl, add_square). floor: passes (k > KMAX) find the neighbours after (floor_d, floor_i) of the
// previous pass, read from out_dist / out_index (0: none).
// write_index (ALL = 0): also write the k-th neighbour's original index to out_index (the next pass's floor).
// base, end: the leaves this dispatch searches (a window of the output rows, above).
struct KnnParams {
  n: u32, k: u32, window: u32, inf_bits: u32, one: f32, floor: u32, write_index: u32, base: u32,
  end: u32, p0: u32, p1: u32, p2: u32,
}
@group(0) @binding(0) var<uniform> u: KnnParams;
@group(0) @binding(1) var<storage, read_write> out_index: array<u32>;
@group(0) @binding(2) var<storage, read_write> out_dist: array<f32>;

const NONE: u32 = 0xffffffffu;

var<private> q: array<f32, D>;
var<private> best_d: array<f32, KMAX>;
var<private> best_i: array<u32, KMAX>;
var<private> count: u32;
var<private> worst_d: f32;
var<private> worst_i: u32;
// Only neighbours after (floor_d, floor_i) in (distance, index) order count (a pass after the first; else −1).
var<private> floor_d: f32;
var<private> floor_i: u32;

// Squared distance from q to the box record at word `base` of the box array (bvh/boxget.wgsl: f32 lo D, hi D; or
// D u16 words, whose boxes contain the f32 ones, so the bound stays a lower bound).
fn box_dist(base: u32) -> f32 {
  var s = 0.0;
  for (var a = 0u; a < D; a++) {
    let lw = boxes_get(base + a);
    var hw = lw;
    if (BOX16 == 0u) { hw = boxes_get(base + D + a); }
    var fo = 0u;
    var fc = 0u;
    if (BOX16 != 0u) {
      let f = box_frame_word(u.n);
      fo = boxes_get(f + a);
      fc = boxes_get(f + D + a);
    }
    let b = box_interval(lw, hw, fo, fc);
    s = add_square(s, axis_gap_of(b.x, b.y, q[a]), u.one);
  }
  return s;
}

// Squared distance from q to the point at Morton position p: bit for bit the Borůvka kernels' key of the pair
// (emst/distance.wgsl), so a core distance equals the key of the edge to that neighbour.
fn point_dist(p: u32) -> f32 {
  var s = 0.0;
  for (var a = 0u; a < D; a++) { s = add_square(s, abs(q[a] - points_get(p * D + a)), u.one); }
  return s;
}

// Squared distance from q to child c's box: internal node c's record, or the point of a leaf (unified index ≥
// header), whose box it is (layout.ts).
fn child_dist(c: u32, header: u32) -> f32 {
  if (c >= header) { return point_dist(c - header); }
  return box_dist(c * BOXW);
}

// Inserts (d, idx) into the sorted list if it beats the current k-th (or the radius while not full).
fn consider(d: f32, idx: u32) {
  if (!(d < worst_d || (d == worst_d && idx < worst_i))) { return; }
  if (!(d > floor_d || (d == floor_d && idx > floor_i))) { return; }
  var pos = min(count, u.k - 1u);
  loop {
    if (pos == 0u) { break; }
    let pd = best_d[pos - 1u];
    let pi = best_i[pos - 1u];
    if (pd < d || (pd == d && pi < idx)) { break; }
    best_d[pos] = pd;
    best_i[pos] = pi;
    pos = pos - 1u;
  }
  best_d[pos] = d;
  best_i[pos] = idx;
  if (count < u.k) { count = count + 1u; }
  if (count == u.k) {
    worst_d = best_d[u.k - 1u];
    worst_i = best_i[u.k - 1u];
  }
}

fn beats_worst(d: f32, idx: u32) -> bool {
  return d < worst_d || (d == worst_d && idx < worst_i);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = u.base + thread_index(wid, nwg, lid);
  let n = u.n;
  if (t >= u.end) { return; }
  let inf = bitcast<f32>(u.inf_bits);
  for (var a = 0u; a < D; a++) { q[a] = points_get(t * D + a); }
  let o = select(order_get(t), t - u.base, MORTON_ROWS == 1u);
  floor_d = -1.0;
  floor_i = NONE;
  if (u.floor != 0u) {
    floor_d = out_dist[o];
    floor_i = out_index[o];
  }

  // Initial radius: the k-th distance among the window's Morton neighbours.
  count = 0u;
  worst_d = inf;
  worst_i = NONE;
  let win = min(u.window, n - 1u);
  let s = min(select(0u, t - win / 2u, t > win / 2u), n - 1u - win);
  for (var p = s; p <= s + win; p++) {
    if (p != t) { consider(point_dist(p), order_get(p)); }
  }
  let radius = select(inf, best_d[u.k - 1u], count == u.k);
  count = 0u;
  worst_d = radius;
  worst_i = NONE;

  // Nearest-child-first descent from the header record.
  let header = n - 1u;
  let self_leaf = header + t;
  var stack: array<vec2u, STACK>;
  var sp = 0u;
  var node = header;
  loop {
    // | left | right | minIndex(left) | minIndex(right) | from the two arrays (bvh/layout.ts, "Records").
    let lk = vec4u(links_get(node), mins_get(node));
    var go_l = false;
    var go_r = false;
    let dl = child_dist(lk.x, header);
    if (lk.x >= header) {
      if (lk.x != self_leaf) { consider(dl, lk.z); }
    } else {
      go_l = beats_worst(dl, lk.z);
    }
    var dr = inf;
    if (lk.y != NONE) {
      dr = child_dist(lk.y, header);
      if (lk.y >= header) {
        if (lk.y != self_leaf) { consider(dr, lk.w); }
      } else {
        go_r = beats_worst(dr, lk.w);
      }
    }
    if (go_l && go_r) {
      let left_first = dl < dr || (dl == dr && lk.z < lk.w);
      stack[sp] = select(vec2u(lk.x, bitcast<u32>(dl)), vec2u(lk.y, bitcast<u32>(dr)), left_first);
      sp = sp + 1u;
      node = select(lk.y, lk.x, left_first);
      continue;
    }
    if (go_l) { node = lk.x; continue; }
    if (go_r) { node = lk.y; continue; }
    var found = false;
    loop {
      if (sp == 0u) { break; }
      sp = sp - 1u;
      let e = stack[sp];
      if (bitcast<f32>(e.y) <= worst_d) {
        node = e.x;
        found = true;
        break;
      }
    }
    if (!found) { break; }
  }

  if (ALL == 1u) {
    for (var r = 0u; r < u.k; r++) {
      out_index[o * u.k + r] = select(NONE, best_i[r], r < count);
      out_dist[o * u.k + r] = select(inf, best_d[r], r < count);
    }
  } else {
    out_dist[o] = select(inf, best_d[u.k - 1u], count == u.k);
    if (u.write_index != 0u) { out_index[o] = select(NONE, best_i[u.k - 1u], count == u.k); }
  }
}
