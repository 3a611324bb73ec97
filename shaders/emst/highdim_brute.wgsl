// The k nearest neighbours of every point by brute force, for the high-dimensional EMST's candidate lists
// (src/emst/highdim.ts): at 16 dimensions a BVH prunes next to nothing, and a tiled scan of all points is the
// faster exact search. Each thread is one query (a Morton position in [u.base, u.base + u.count)) with its
// coordinates in registers; the workgroup stages TILE points at a time in workgroup memory (coalesced loads, read
// back as broadcasts) and every thread keeps its k best (key, original index) in a sorted private list.
//
// Important! Keys are edge_key()'s (emst/distance.wgsl): the sum over dimensions, in dimension order, of the
// rounded squares of the f32 differences, each added by add_square() — so a key here equals, bit for bit, the key
// the rounds' kernels and the CPU backend compute for the same pair. Neighbours are ranked by (key, original
// index): for a fixed query that is the canonical (key, min, max) order of its edges (neighbours.cpu.ts), so a list
// is exactly the query's k first edges in that order, ties at the k-th key included.
// Output, row j = Morton position j: lkeys[j·K + r] the r-th key's f32 bits, lpos[j·K + r] its Morton position
// (NONE past n − 1 neighbours). The CPU twin: bruteListsCpu in src/emst/highdim.cpu.ts.
struct BruteParams {
  n: u32,
  // The queries of this dispatch: Morton positions [base, base + count).
  base: u32,
  count: u32,
  // 1.0, for add_square (knn/distance.wgsl).
  one: f32,
}

@group(0) @binding(0) var<uniform> u: BruteParams;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read_write> lkeys: array<u32>;
@group(0) @binding(4) var<storage, read_write> lpos: array<u32>;
// BOXES = 1: every tile's bounding box, lo D floats then hi D floats (emst/highdim_tiles.wgsl). A tile whose box
// lies beyond every live thread's K-th key (by more than SLACK ulps: the box bound is computed unlike the keys, see
// emst/common.wgsl) is skipped, loads and all — in 8 dimensions most tiles are; in 16 few. BOXES = 0: not read.
@group(0) @binding(5) var<storage, read> tileBoxes: array<f32>;

const NONE: u32 = 0xffffffffu;
const INF_BITS: u32 = 0x7f800000u;
const D4: u32 = (D + 3u) / 4u;

var<workgroup> tile: array<vec4f, TILE * D4>;
var<workgroup> tileIdx: array<u32, TILE>;
var<workgroup> need: atomic<u32>;
var<workgroup> needTile: u32;
const SLACK: u32 = 4u * D + 8u;

// The squared distance from q to tile t's box, with the keys' monotone steps (a lower bound on every point's key).
fn box_bound(q: ptr<function, array<vec4f, D4>>, t: u32, one: f32) -> u32 {
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    let x = (*q)[k / 4u][k % 4u];
    s = add_square(s, axis_gap_of(tileBoxes[t * 2u * D + k], tileBoxes[t * 2u * D + D + k], x), one);
  }
  return bitcast<u32>(s);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  let live = t < u.count;
  let j = u.base + t;
  let n = u.n;
  let one = u.one;
  var q: array<vec4f, D4>;
  if (live) {
    for (var k = 0u; k < D; k++) { q[k / 4u][k % 4u] = points[j * D + k]; }
  }
  var keys: array<u32, K>;
  var idxs: array<u32, K>;
  var poss: array<u32, K>;
  for (var r = 0u; r < K; r++) {
    keys[r] = NONE;
    idxs[r] = NONE;
    poss[r] = NONE;
  }
  // The K-th entry: a candidate must precede it in (key, original index) order.
  var topKey = NONE;
  var topIdx = NONE;
  // topKey as a float, +inf while the list is not full (NONE is no float).
  var topF = bitcast<f32>(min(topKey, INF_BITS));
  // Tiles from the workgroup's own on, wrapping around: Morton neighbours come first, so the K-th key shrinks
  // early and the partial sums leave early (the list does not depend on the order points are offered in).
  let tiles = (n + TILE - 1u) / TILE;
  let first = min((u.base + group_index(wid, nwg) * WG) / TILE, tiles - 1u);
  for (var tt = 0u; tt < tiles; tt++) {
    var tile_at = first + tt;
    if (tile_at >= tiles) { tile_at -= tiles; }
    let t0 = tile_at * TILE;
    if (BOXES != 0u) {
      // Skip the tile when no live thread can find a key within its K-th in it (a workgroup-uniform decision).
      workgroupBarrier();
      if (lid == 0u) { atomicStore(&need, 0u); }
      workgroupBarrier();
      if (live && (topKey >= NONE - SLACK || box_bound(&q, tile_at, one) <= topKey + SLACK)) {
        atomicOr(&need, 1u);
      }
      workgroupBarrier();
      if (lid == 0u) { needTile = atomicLoad(&need); }
      if (workgroupUniformLoad(&needTile) == 0u) { continue; }
    }
    workgroupBarrier();
    for (var i = lid; i < TILE * D4; i += WG) {
      let p = t0 + i / D4;
      let c = (i % D4) * 4u;
      var v = vec4f(0.0);
      if (p < n) {
        for (var e = 0u; e < 4u; e++) {
          if (c + e < D) { v[e] = points[p * D + c + e]; }
        }
      }
      tile[i] = v;
    }
    for (var i = lid; i < TILE; i += WG) { tileIdx[i] = select(NONE, order[t0 + i], t0 + i < n); }
    workgroupBarrier();
    // Important! Not `continue` for idle threads: the barriers above must stay in uniform control flow.
    let m = select(0u, min(TILE, n - t0), live);
    for (var i = 0u; i < m; i++) {
      // Four axes at a time, leaving early once the partial sum exceeds the K-th key: the rounded sum never
      // decreases as terms ≥ 0 are added, so the whole key would exceed it too (ties go on to the index test).
      var s = 0.0;
      for (var k4 = 0u; k4 < D4; k4++) {
        let a = q[k4];
        let b = tile[i * D4 + k4];
        for (var e = 0u; e < 4u; e++) {
          if (k4 * 4u + e < D) { s = add_square(s, a[e] - b[e], one); }
        }
        if (s > topF) { break; }
      }
      let key = bitcast<u32>(s);
      if (key > topKey) { continue; }
      let idx = tileIdx[i];
      let p = t0 + i;
      if (p == j || (key == topKey && idx > topIdx)) { continue; }
      // Insert (key, idx, p), shifting the entries after it; the K-th falls off.
      var r = K - 1u;
      loop {
        if (r == 0u) { break; }
        let pk = keys[r - 1u];
        if (pk < key || (pk == key && idxs[r - 1u] < idx)) { break; }
        keys[r] = pk;
        idxs[r] = idxs[r - 1u];
        poss[r] = poss[r - 1u];
        r -= 1u;
      }
      keys[r] = key;
      idxs[r] = idx;
      poss[r] = p;
      topKey = keys[K - 1u];
      topIdx = idxs[K - 1u];
      topF = bitcast<f32>(min(topKey, INF_BITS));
    }
  }
  if (live) {
    for (var r = 0u; r < K; r++) {
      lkeys[j * K + r] = keys[r];
      lpos[j * K + r] = poss[r];
    }
  }
}
