// Settling points from their candidate lists, once per Borůvka round before the upper bounds (src/emst/highdim.ts;
// the GPU form of the CPU backend's candidates.cpu.ts, Euclidean keys). A list is the point's first K edges in the
// canonical (key, min, max) order (emst/highdim_brute.wgsl), and every point outside it comes after its last entry.
// So, for point j in component c:
//  - a candidate from an earlier round whose far end is still outside c is kept (active.wgsl says why);
//  - else the first entry outside c is j's exact best edge: cand[j] = (key, Morton position), and the upper
//    bounds, the skip and the per-component minima take it from there as they take a traversal's result;
//  - entries before it lie in c for good (components only grow): cursor[j] skips them in later rounds;
//  - with every entry in c, the last key bounds every edge of j from below: pointBound[j] rises to it, and
//    emst/active.wgsl lets j traverse only if that does not exceed c's upper bound.
// Entries below the scale cut are never edges and are skipped too. Past n − 1 neighbours the list holds NONE: it
// held every other point, all of them in c — no edge at all (bound NONE).
// Mutual reachability (u.mr = 1; candidates.cpu.ts's reasoning): the list is in Euclidean order, so the best entry
// outside c by (reachability key, original index) is found by scanning the rest of it; every point outside the list
// has a key ≥ B = max(core²(j), fround(lastKey · ia2)), so the entry is exact when its key is below B, or — alpha = 1,
// where B is the last key itself — equal to B with an original index up to the last entry's; otherwise
// min(best, B) bounds j's edges from below.
// The CPU twin: settleCpu in src/emst/highdim.cpu.ts.
struct SettleParams {
  n: u32,
  // The scale cut's key bits (0: none).
  cut: u32,
  // 1: mutual reachability (core2 and order are read), 0: Euclidean.
  mr: u32,
  // 1 / alpha² (emst/common.wgsl).
  ia2: f32,
}

@group(0) @binding(0) var<uniform> u: SettleParams;
// n labels, then the "tree complete" flag label[n] (plan.wgsl).
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> lkeys: array<u32>;
@group(0) @binding(3) var<storage, read> lpos: array<u32>;
@group(0) @binding(4) var<storage, read_write> cursor: array<u32>;
@group(0) @binding(5) var<storage, read_write> cand: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> pointBound: array<u32>;
// Mutual reachability only: squared core distances (f32 bits) and original indices, per Morton position.
@group(0) @binding(7) var<storage, read> core2: array<u32>;
@group(0) @binding(8) var<storage, read> order: array<u32>;

const NONE: u32 = 0xffffffffu;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.n || label[u.n] != 0u) { return; }
  let comp = label[j];
  let prev = cand[j];
  if (prev.x != NONE && label[prev.y] != comp) { return; }
  let base = j * K;
  var r = cursor[j];
  loop {
    if (r >= K) { break; }
    let p = lpos[base + r];
    if (p == NONE || (label[p] != comp && lkeys[base + r] >= u.cut)) { break; }
    r += 1u;
  }
  cursor[j] = r;
  if (u.mr != 0u) {
    settle_reach(j, comp, r);
    return;
  }
  if (r < K && lpos[base + r] != NONE) {
    cand[j] = vec2u(lkeys[base + r], lpos[base + r]);
    return;
  }
  cand[j] = vec2u(NONE, NONE);
  var bound = NONE;
  if (r == K) { bound = lkeys[base + K - 1u]; }
  pointBound[j] = max(pointBound[j], bound);
}

// The reachability key of Morton positions j and p from their Euclidean key e (bits), as edge_key() forms it.
fn reach_key(e: u32, j: u32, p: u32) -> u32 {
  return max(max(bitcast<u32>(bitcast<f32>(e) * u.ia2), core2[j]), core2[p]);
}

// Mutual reachability's settle of point j in component comp from list entry r on (see the header).
fn settle_reach(j: u32, comp: u32, r0: u32) {
  let base = j * K;
  var bestKey = NONE;
  var bestIdx = NONE;
  var bestPos = NONE;
  // Full: K real entries, so points outside the list exist and B bounds them; else the list holds every other point
  // (its NONE entries are never scaled: the H100 and the CPU spell NaN differently).
  let last = base + K - 1u;
  let full = lpos[last] != NONE;
  for (var r = r0; r < K; r++) {
    let p = lpos[base + r];
    if (p == NONE) { break; }
    if (label[p] == comp) { continue; }
    let key = reach_key(lkeys[base + r], j, p);
    let o = order[p];
    if (key < bestKey || (key == bestKey && o < bestIdx)) {
      bestKey = key;
      bestIdx = o;
      bestPos = p;
    }
  }
  var exact = bestPos != NONE;
  var bound = NONE;
  if (full) {
    let outside = max(bitcast<u32>(bitcast<f32>(lkeys[last]) * u.ia2), core2[j]);
    exact = exact && (bestKey < outside || (bestKey == outside && u.ia2 == 1.0 && bestIdx <= order[lpos[last]]));
    bound = min(bestKey, outside);
  }
  if (exact) {
    cand[j] = vec2u(bestKey, bestPos);
    return;
  }
  cand[j] = vec2u(NONE, NONE);
  pointBound[j] = max(pointBound[j], bound);
}
