// Branches of a tree (MiSTree, Naidoo et al. 2020: maximal chains of ≥ 2 edges whose interior nodes have degree
// 2), one walk per end edge (CPU twin: src/stats/branches.cpu.ts, findBranches). An end edge joins a node of degree
// ≠ 2 (the branch's end) to one of degree 2; from there the walk follows link[v] XOR the edge it came by until it
// reaches a node of degree ≠ 2. Each branch is walked from both of its end edges; only the walk that starts at the
// smaller end node reports it (so its float32 sums run in one direction whatever the edge order: the histograms of
// the EMST's edges in the order found equal those of the canonical order), at its smaller end edge id
// i = min(first, last edge), flags[i] = i + 1 (stream compaction keeps those, in edge order; the caller clears flags):
//   rec[i] = (edge count, end at edge i, the other end, f32 bits of the summed edge lengths), e2e[i] = end-to-end
// distance — the straight line between the ends, or in a periodic box (PERIODIC != 0) the length of the summed
// minimum-image displacements of the walk. Edge lengths are measured from the coordinates (stats/image.wgsl).
// Edge e's ends are sources[e · stride] and targets[e · stride + toff] (StatsParams).
// Big arrays (issue 19, src/stats/branches.ts): every array is read and written through accessors generated from
// @binding(1) on (sources_get, targets_get, deg_get, link_get, points_get, rec_set, e2e_set, flags_set): each whole
// where it fits one binding, else in parts.
@group(0) @binding(0) var<uniform> u: StatsParams;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  let ra = sources_get(e * u.stride);
  let rb = targets_get(e * u.stride + u.toff);
  let da = deg_get(ra);
  let db = deg_get(rb);
  var start: u32;
  var cur: u32;
  if (da != 2u && db == 2u) {
    start = ra;
    cur = rb;
  } else if (db != 2u && da == 2u) {
    start = rb;
    cur = ra;
  } else {
    return;
  }
  var disp: array<f32, D>;
  for (var k = 0u; k < D; k++) {
    disp[k] = 0.0;
    if (PERIODIC != 0u) { disp[k] = axis_step(start, cur, k); }
  }
  var len = edge_length(start, cur);
  var count = 1u;
  var came = e;
  var end = cur;
  // Important! A tree has no cycle, so the walk ends at a node of degree ≠ 2 within m steps.
  for (var step = 0u; step < u.m; step++) {
    let next = link_get(cur) ^ came;
    // The node across edge `next` from cur.
    let w = sources_get(next * u.stride) ^ targets_get(next * u.stride + u.toff) ^ cur;
    len += edge_length(cur, w);
    count += 1u;
    if (PERIODIC != 0u) {
      for (var k = 0u; k < D; k++) { disp[k] += axis_step(cur, w, k); }
    }
    came = next;
    if (deg_get(w) != 2u) {
      end = w;
      break;
    }
    cur = w;
  }
  // Important! In a tree a branch's two ends differ: exactly one of its two walks reports.
  if (end < start) { return; }
  let i = min(e, came);
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    var t = disp[k];
    if (PERIODIC == 0u) { t = points_get(end * D + k) - points_get(start * D + k); }
    s += t * t;
  }
  if (i == e) {
    rec_set(i, vec4u(count, start, end, bitcast<u32>(len)));
  } else {
    rec_set(i, vec4u(count, end, start, bitcast<u32>(len)));
  }
  e2e_set(i, sqrt(s));
  flags_set(i, i + 1u);
}
