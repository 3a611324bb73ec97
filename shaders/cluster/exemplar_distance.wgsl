// Soft clustering's distance part (src/cluster/exemplars.distance.ts; CPU twin exemplars.distance.cpu.ts): for each
// point r of a block and each selected cluster j, the smallest squared distance from the point to the cluster's
// exemplars, out[r · k + j] = min over e in [starts[j], starts[j + 1]) of dist²(point r, exemplar e).
// dist² is treeline's one distance formula, add_square() of knn/distance.wgsl (every square and addition rounded to
// f32, summed in axis order), so the CPU twin finds the same f32 bits. A cluster without exemplars keeps the
// largest f32 (the host reads it as "no exemplar").
// One thread per point: every thread of a workgroup reads the same exemplar at the same time (a broadcast).
// Composed after common/grid and knn/distance; D (the dimension) is prepended as a const.

struct Params {
  /** Points in this block. */
  rows: u32,
  /** Selected clusters (columns). */
  k: u32,
  /** 1.0 (add_square's `one`). */
  one: f32,
  pad: u32,
}

@group(0) @binding(0) var<uniform> u: Params;
/** The block's points, rows × D, row-major. */
@group(0) @binding(1) var<storage, read> points: array<f32>;
/** Every cluster's exemplars in column order, E × D, row-major. */
@group(0) @binding(2) var<storage, read> exemplars: array<f32>;
/** Column j's exemplars are rows [starts[j], starts[j + 1]) of `exemplars` (k + 1 entries). */
@group(0) @binding(3) var<storage, read> starts: array<u32>;
/** rows × k smallest squared distances, row-major. */
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

const NO_EXEMPLAR: f32 = 3.40282346638528859812e38;

@compute @workgroup_size(WG)
fn exemplar_distance(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                     @builtin(local_invocation_index) lid: u32) {
  let r = thread_index(wid, nwg, lid);
  if (r >= u.rows) {
    return;
  }
  var q: array<f32, D>;
  for (var a = 0u; a < D; a++) { q[a] = points[r * D + a]; }
  for (var j = 0u; j < u.k; j++) {
    var best = NO_EXEMPLAR;
    for (var e = starts[j]; e < starts[j + 1u]; e++) {
      var s = 0.0;
      for (var a = 0u; a < D; a++) { s = add_square(s, q[a] - exemplars[e * D + a], u.one); }
      best = min(best, s);
    }
    out[r * u.k + j] = best;
  }
}
