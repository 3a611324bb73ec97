// The bounding box of every tile of TILE Morton-consecutive points, for the brute-force search's tile skipping
// (emst/highdim_brute.wgsl, BOXES = 1): thread (t, k) takes axis k of tile t. Output: tile t's lo D floats, then its
// hi D floats. The CPU twin: tileBoxesCpu in src/emst/highdim.cpu.ts.
struct TilesParams {
  n: u32,
  tiles: u32,
  p0: u32,
  p1: u32,
}

@group(0) @binding(0) var<uniform> u: TilesParams;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read_write> tileBoxes: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.tiles * D) { return; }
  let t = i / D;
  let k = i % D;
  let first = t * TILE;
  let end = min(first + TILE, u.n);
  var lo = points[first * D + k];
  var hi = lo;
  for (var p = first + 1u; p < end; p++) {
    let x = points[p * D + k];
    lo = min(lo, x);
    hi = max(hi, x);
  }
  tileBoxes[t * 2u * D + k] = lo;
  tileBoxes[t * 2u * D + D + k] = hi;
}
