// emst/highdim_brute.wgsl with two queries per thread (src/emst/highdim.ts, `queriesPerThread: 2`): each staged
// point is read from workgroup memory once for both, so the loads and the loop's overhead are shared, and a point
// is left as soon as both partial sums exceed their lists' K-th keys. The same keys, ranking and output as
// highdim_brute.wgsl (its header says why they are exact); a workgroup takes queries [base + 2·WG·g, + 2·WG): thread
// lid the lid-th and the (WG + lid)-th. The CPU twin: bruteListsCpu in src/emst/highdim.cpu.ts.
struct BruteParams {
  n: u32,
  base: u32,
  count: u32,
  one: f32,
}

@group(0) @binding(0) var<uniform> u: BruteParams;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read_write> lkeys: array<u32>;
@group(0) @binding(4) var<storage, read_write> lpos: array<u32>;
// Declared as highdim_brute.wgsl declares it; never read here (no tile skipping with two queries per thread).
@group(0) @binding(5) var<storage, read> tileBoxes: array<f32>;

const NONE: u32 = 0xffffffffu;
const INF_BITS: u32 = 0x7f800000u;
const D4: u32 = (D + 3u) / 4u;

var<workgroup> tile: array<vec4f, TILE * D4>;
var<workgroup> tileIdx: array<u32, TILE>;

// One query's sorted list of its K best (key, original index, Morton position) and its K-th entry.
struct Top {
  key: u32,
  idx: u32,
  f: f32,
}

// Inserts (key, idx, p) into the sorted list, shifting the entries after it; returns the new K-th entry.
fn insert(keys: ptr<function, array<u32, K>>, idxs: ptr<function, array<u32, K>>, poss: ptr<function, array<u32, K>>,
          key: u32, idx: u32, p: u32) -> Top {
  var r = K - 1u;
  loop {
    if (r == 0u) { break; }
    let pk = (*keys)[r - 1u];
    if (pk < key || (pk == key && (*idxs)[r - 1u] < idx)) { break; }
    (*keys)[r] = pk;
    (*idxs)[r] = (*idxs)[r - 1u];
    (*poss)[r] = (*poss)[r - 1u];
    r -= 1u;
  }
  (*keys)[r] = key;
  (*idxs)[r] = idx;
  (*poss)[r] = p;
  let top = (*keys)[K - 1u];
  return Top(top, (*idxs)[K - 1u], bitcast<f32>(min(top, INF_BITS)));
}

// Whether (key, idx) at Morton position p enters the list of query j whose K-th entry is `top`.
fn enters(key: u32, idx: u32, p: u32, j: u32, top: Top) -> bool {
  return key <= top.key && p != j && !(key == top.key && idx > top.idx);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  let t0q = g * 2u * WG + lid;
  let t1q = t0q + WG;
  let live0 = t0q < u.count;
  let live1 = t1q < u.count;
  let j0 = u.base + t0q;
  let j1 = u.base + t1q;
  let n = u.n;
  let one = u.one;
  var q0: array<vec4f, D4>;
  var q1: array<vec4f, D4>;
  if (live0) {
    for (var k = 0u; k < D; k++) { q0[k / 4u][k % 4u] = points[j0 * D + k]; }
  }
  if (live1) {
    for (var k = 0u; k < D; k++) { q1[k / 4u][k % 4u] = points[j1 * D + k]; }
  }
  var keys0: array<u32, K>;
  var idxs0: array<u32, K>;
  var poss0: array<u32, K>;
  var keys1: array<u32, K>;
  var idxs1: array<u32, K>;
  var poss1: array<u32, K>;
  for (var r = 0u; r < K; r++) {
    keys0[r] = NONE;
    idxs0[r] = NONE;
    poss0[r] = NONE;
    keys1[r] = NONE;
    idxs1[r] = NONE;
    poss1[r] = NONE;
  }
  let inf = bitcast<f32>(min(keys0[0], INF_BITS));
  // An idle query's K-th key is below every key (−1 as its float): it never holds the others back, nor inserts.
  var top0 = Top(select(0u, NONE, live0), NONE, select(-1.0, inf, live0));
  var top1 = Top(select(0u, NONE, live1), NONE, select(-1.0, inf, live1));
  let tiles = (n + TILE - 1u) / TILE;
  let first = min((u.base + g * 2u * WG) / TILE, tiles - 1u);
  let anyLive = live0 || live1;
  for (var tt = 0u; tt < tiles; tt++) {
    var tile_at = first + tt;
    if (tile_at >= tiles) { tile_at -= tiles; }
    let t0 = tile_at * TILE;
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
    let m = select(0u, min(TILE, n - t0), anyLive);
    for (var i = 0u; i < m; i++) {
      var s0 = 0.0;
      var s1 = 0.0;
      for (var k4 = 0u; k4 < D4; k4++) {
        let b = tile[i * D4 + k4];
        let a0 = q0[k4];
        let a1 = q1[k4];
        for (var e = 0u; e < 4u; e++) {
          if (k4 * 4u + e < D) {
            s0 = add_square(s0, a0[e] - b[e], one);
            s1 = add_square(s1, a1[e] - b[e], one);
          }
        }
        if (s0 > top0.f && s1 > top1.f) { break; }
      }
      let key0 = bitcast<u32>(s0);
      let key1 = bitcast<u32>(s1);
      if (key0 > top0.key && key1 > top1.key) { continue; }
      let idx = tileIdx[i];
      let p = t0 + i;
      if (live0 && enters(key0, idx, p, j0, top0)) { top0 = insert(&keys0, &idxs0, &poss0, key0, idx, p); }
      if (live1 && enters(key1, idx, p, j1, top1)) { top1 = insert(&keys1, &idxs1, &poss1, key1, idx, p); }
    }
  }
  if (live0) {
    for (var r = 0u; r < K; r++) {
      lkeys[j0 * K + r] = keys0[r];
      lpos[j0 * K + r] = poss0[r];
    }
  }
  if (live1) {
    for (var r = 0u; r < K; r++) {
      lkeys[j1 * K + r] = keys1[r];
      lpos[j1 * K + r] = poss1[r];
    }
  }
}
