// Borůvka's nearest point in another component (emst/nearest.wgsl, emst/traverse.wgsl) over a BVH whose arrays
// exceed one storage binding (issue 19): the subtree-window traversal of src/emst/nearestsplit.ts. The Morton
// positions are cut into query windows and tree windows; this kernel runs once per (query window × tree window),
// tree windows in order, each thread a point j of the query window:
//  - the tree window's BVH arrays (links, boxes, childLabel, minCore2 of internal nodes [tFirst, …) and the points,
//    order and core distances of leaves [tFirst, …)) are bound from tFirst on, and the traversal starts at the
//    window's roots (emst/subtree_roots.wgsl), the maximal subtrees inside it, which never leave it;
//  - the query's state between tree windows is its candidate so far, cand[j] = (key, other Morton position) (the
//    other end's original index, for the (key, min index, max index) tie-break, is order[other]: order is bound
//    for every point, whole or in parts);
//    the first tree window (tWindow = 0) starts from none. The radius is the candidate's key, else the component's
//    upper bound.
// Pruning is sound in every window (a subtree is left out only when no point in it can beat the radius, with the
// box test's SLACK), so after the last tree window cand[j] is the least (key, lo, hi) over every point of another
// component within the upper bound and above the scale cut: what nearest.wgsl writes for the points it traverses.
// Which points traverse (u.skip = 1): those emst/split_active.wgsl listed for the query window (list[0 … counts[q]),
// positions in the window), as emst/active.wgsl decides them; u.skip = 0: every point of the window. A point's
// final radius is written to pointBound at the last tree window (tLast): it bounds its later rounds from below.
// What the windows cost: the top of the tree above the roots gives no pruning and the roots no order (nearer first)
// nor subtree skipping by childLabel (their parents' records lie in other windows); each query tests the box of
// every root of every tree window (at most 2·96 each, a few tens in practice).
// Key and box bound: computed exactly as emst/distance.wgsl's edge_key (same operands, order and add_square) and
// traverse.wgsl's box_d2 (same gaps), on the query's coordinates held in registers.

struct SplitParams {
  // The fields of emst/common.wgsl's Params, in its order.
  n: u32,
  mr: u32,
  ia2: f32,
  skip: u32,
  cut: u32,
  one: f32,
  // The index of the last tree window (the final radius is written there).
  tLast: u32,
  // The query window's index (its count in counts).
  qWindow: u32,
  period: array<vec4f, 4>,
  // The query window: Morton positions [qFirst, qFirst + qCount).
  qFirst: u32,
  qCount: u32,
  // The tree window: the first Morton position (and internal node) its arrays are bound from, and its index.
  tFirst: u32,
  tWindow: u32,
}
@group(0) @binding(0) var<uniform> u: SplitParams;
// The query window's points (D words each), and the tree window's leaves, from tFirst.
@group(0) @binding(1) var<storage, read> pointsQ: array<f32>;
@group(0) @binding(2) var<storage, read> pointsT: array<f32>;
// The tree window's internal nodes' records, from tFirst (links and childLabel per record, boxes 2·D words per
// internal node, or D in the u16 format: BOXW).
@group(0) @binding(3) var<storage, read> links: array<vec2u>;
@group(0) @binding(4) var<storage, read> boxes: array<u32>;
@group(0) @binding(5) var<storage, read> childLabel: array<vec2u>;
// The roots of every window.
@group(0) @binding(6) var<storage, read> roots: array<u32>;
// The query window's state: candidates and bounds; its list of searching points and every window's count.
@group(0) @binding(7) var<storage, read_write> cand: array<vec2u>;
@group(0) @binding(8) var<storage, read_write> pointBound: array<u32>;
@group(0) @binding(9) var<storage, read> list: array<u32>;
@group(0) @binding(10) var<storage, read> counts: array<u32>;
// Generated from binding 11 on (src/emst/nearestsplit.ts, src/gpu/bigarray.ts): for mutual reachability the query
// window's squared core distances core2Q_get, the tree window's core2T_get and per record minCore2_get (vec2f), one
// binding each (absent, returning 0, for a Euclidean run: u.mr = 0 never reads them); then the 4-byte arrays
// order_get (the original indices), label_get (and the "tree complete" flag at n) and ub_get (the upper bounds),
// whole or in parts above one binding (issue 19).

const ROOT_STRIDE: u32 = 256u;
// As traverse.wgsl: a subtree's stack never overflows (bvh/layout.ts, STACK_SIZE).
const STACK: u32 = 100u;

// The query: its coordinates and squared core distance, and the best candidate so far.
var<private> qp: array<f32, D>;
var<private> qCore: f32;
var<private> me: u32;
var<private> comp: u32;
var<private> radius: u32;
var<private> bestKey: u32;
var<private> bestOther: u32;
var<private> bestLo: u32;
var<private> bestHi: u32;

// As traverse.wgsl's axis_gap.
fn axis_gap(x: f32, lo: f32, hi: f32, k: u32) -> f32 {
  var t = max(max(lo - x, x - hi), 0.0);
  if (PERIODIC != 0u) {
    let L = period_of(k);
    if (x < lo) {
      t = min(t, L - (hi - x));
    } else if (x > hi) {
      t = min(t, L - (x - lo));
    }
  }
  return t;
}

// The lower bound of internal node c's subtree (traverse.wgsl's box_d2, and for mutual reachability the query's own
// core; the subtree's smallest core is added by the caller where its parent's record is bound), as key bits.
// Records are read through bvh/boxget.wgsl, in either format. Also sets *flat as traverse.wgsl's box_d2 does: the
// f32 box is one point.
fn box_bound(c: u32, flat: ptr<function, bool>) -> f32 {
  let base = (c - u.tFirst) * BOXW;
  var s = 0.0;
  var diff = select(0u, 1u, BOX16 != 0u);
  for (var k = 0u; k < D; k++) {
    let lw = boxes[base + k];
    var hw = lw;
    if (BOX16 == 0u) {
      hw = boxes[base + D + k];
      diff = diff | (lw ^ hw);
    }
    var fo = 0u;
    var fc = 0u;
    if (BOX16 != 0u) {
      // u16: the frame after every window's roots (nearestsplit.ts encodeRoots copies it there).
      let f = (u.tLast + 1u) * ROOT_STRIDE;
      fo = roots[f + k];
      fc = roots[f + D + k];
    }
    let b = box_interval(lw, hw, fo, fc);
    s = add_square(s, axis_gap(qp[k], b.x, b.y, k), u.one);
  }
  if (u.mr != 0u) { s = max(s * u.ia2, qCore); }
  *flat = diff == 0u;
  return s;
}

// traverse.wgsl's equal_leaf for internal node c of the tree window (whose subtree never leaves it): the Morton
// position of the least-index leaf under c outside the query's component when c's points are all one point, or
// NONE to descend.
fn equal_leaf(c: u32, mc: f32) -> u32 {
  var node = c;
  while (node < u.n - 1u) { node = links[node - u.tFirst].x; }
  var k = node - (u.n - 1u);
  if (label_get(k) == comp) {
    k += 1u;
    if (label_get(k) == comp) { return NONE; }
  }
  if (u.mr != 0u && (core2T_get(k - u.tFirst) != mc || u.cut != 0u)) { return NONE; }
  return k;
}

// emst/distance.wgsl's edge_key(j, k) for the query j and leaf k of the tree window.
fn leaf_key(k: u32) -> u32 {
  let at = k - u.tFirst;
  var s = 0.0;
  for (var i = 0u; i < D; i++) {
    var t = abs(qp[i] - pointsT[at * D + i]);
    if (PERIODIC != 0u) {
      t = min(t, period_of(i) - t);
    }
    s = add_square(s, t, u.one);
  }
  if (u.mr != 0u) {
    let m = max(qCore, core2T_get(at));
    s = max(m, s * u.ia2);
  }
  return bitcast<u32>(s);
}

// Leaf k (not in the query's component) as a candidate (traverse.wgsl's leaf case).
fn try_leaf(k: u32) {
  let key = leaf_key(k);
  let other = order_get(k);
  let lo = min(me, other);
  let hi = max(me, other);
  if (key >= u.cut && key <= radius && edge_less(key, lo, hi, bestKey, bestLo, bestHi)) {
    bestKey = key;
    bestOther = k;
    bestLo = lo;
    bestHi = hi;
    radius = key;
  }
}

// The subtree of internal node `root` (inside the tree window): traverse.wgsl's loop from its record.
fn traverse(root: u32) {
  var stack: array<u32, STACK>;
  var stackBound: array<u32, STACK>;
  var sp = 0u;
  var rec = root;
  let leaf0 = u.n - 1u;
  loop {
    let l = links[rec - u.tFirst];
    let cl = childLabel[rec - u.tFirst];
    var lower = array<u32, 2>(NONE, NONE);
    for (var side = 0u; side < 2u; side++) {
      let c = select(l.x, l.y, side == 1u);
      if (c == NONE || select(cl.x, cl.y, side == 1u) == comp) { continue; }
      if (c >= leaf0) {
        try_leaf(c - leaf0);
        continue;
      }
      var flat = false;
      var lb = box_bound(c, &flat);
      var mc = 0.0;
      if (u.mr != 0u) {
        let m2 = minCore2_get(rec - u.tFirst);
        mc = select(m2.x, m2.y, side == 1u);
        lb = max(lb, mc);
      }
      let lbBits = bitcast<u32>(lb);
      if (lbBits > radius + SLACK) { continue; }
      // A subtree of copies of one point: only its least-index leaf can win (traverse.wgsl, equal_leaf).
      if (flat) {
        let k = equal_leaf(c, mc);
        if (k != NONE) {
          try_leaf(k);
          continue;
        }
      }
      lower[side] = lbBits;
    }
    let l0 = lower[0];
    let l1 = lower[1];
    if (l0 != NONE && l1 != NONE) {
      if (l0 <= l1) {
        stack[sp] = l.y; stackBound[sp] = l1; stack[sp + 1u] = l.x; stackBound[sp + 1u] = l0;
      } else {
        stack[sp] = l.x; stackBound[sp] = l0; stack[sp + 1u] = l.y; stackBound[sp + 1u] = l1;
      }
      sp += 2u;
    } else if (l0 != NONE) {
      stack[sp] = l.x; stackBound[sp] = l0; sp += 1u;
    } else if (l1 != NONE) {
      stack[sp] = l.y; stackBound[sp] = l1; sp += 1u;
    }
    var next = NONE;
    while (sp > 0u) {
      sp -= 1u;
      if (stackBound[sp] <= radius + SLACK) {
        next = stack[sp];
        break;
      }
    }
    if (next == NONE) { break; }
    rec = next;
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl).
  if (label_get(u.n) != 0u) { return; }
  let rootBase = u.tWindow * ROOT_STRIDE;
  let rootCount = min(roots[rootBase], ROOT_STRIDE - 1u);
  let leaf0 = u.n - 1u;
  let stride = nwg.x * nwg.y * WG;
  var count = u.qCount;
  if (u.skip != 0u) { count = counts[u.qWindow]; }
  for (var s = thread_index(wid, nwg, lid); s < count; s += stride) {
    var t = s;
    if (u.skip != 0u) { t = list[s]; }
    let j = u.qFirst + t;
    comp = label_get(j);
    bestKey = NONE;
    bestOther = NONE;
    if (u.tWindow != 0u) {
      let c = cand[t];
      bestKey = c.x;
      bestOther = c.y;
    }
    for (var i = 0u; i < D; i++) { qp[i] = pointsQ[t * D + i]; }
    qCore = 0.0;
    if (u.mr != 0u) { qCore = core2Q_get(t); }
    me = order_get(j);
    // The radius: the candidate's key (at most the upper bound it was found within), else the upper bound.
    radius = ub_get(comp);
    bestLo = NONE;
    bestHi = NONE;
    if (bestKey != NONE) {
      radius = bestKey;
      let o = order_get(bestOther);
      bestLo = min(me, o);
      bestHi = max(me, o);
    }
    for (var r = 0u; r < rootCount; r++) {
      let root = roots[rootBase + 1u + r];
      if (root >= leaf0) {
        // A root that is one leaf (its label is the uniformity test a parent's childLabel would make).
        if (label_get(root - leaf0) != comp) { try_leaf(root - leaf0); }
        continue;
      }
      var flat = false;
      if (bitcast<u32>(box_bound(root, &flat)) > radius + SLACK) { continue; }
      traverse(root);
    }
    cand[t] = vec2u(bestKey, bestOther);
    // The final radius bounds later rounds' searches from below (nearest.wgsl).
    if (u.tWindow == u.tLast) { pointBound[t] = radius; }
  }
}
