// The traversal of emst/nearest.wgsl (and its binding-lean twin nearest_lite.wgsl for devices with few storage
// buffers per stage, e.g. browsers): the nearest point in another component of Morton position j, within its
// component's upper bound. Declares the bindings both kernels share (0–10, below); the includer declares the box
// parts box_word() reads beyond boxes0 (bvh/boxread.wgsl) or none (bvh/boxread1.wgsl).

@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> core2: array<f32>;
@group(0) @binding(3) var<storage, read> order: array<u32>;
@group(0) @binding(4) var<storage, read> links: array<vec2u>;
@group(0) @binding(5) var<storage, read> boxes0: array<u32>;
@group(0) @binding(6) var<storage, read> childLabel: array<vec2u>;
@group(0) @binding(7) var<storage, read> label: array<u32>;
@group(0) @binding(8) var<storage, read> ub: array<u32>;
@group(0) @binding(9) var<storage, read> minCore2: array<vec2f>;
@group(0) @binding(10) var<storage, read_write> cand: array<vec2u>;

// FIRST = 1 (boruvka.ts, RoundPasses.firstTraversal): the first round's traversal, which reads no node labels. Every
// point is then its own component, so the only subtree in the query's component is its own leaf; every internal node
// is mixed.
override FIRST: u32 = 0u;
// QREG = 1 (boruvka.ts, RoundPasses.queryRegs; small D only): the query's coordinates are read once into registers
// instead of from `points` at every box and leaf test. The same values and the same rounding steps either way.
override QREG: u32 = 0u;
// LAZY = 1 (boruvka.ts, RoundPasses.lazyOrder): a leaf's original index (for the tie-break) is read only when its key
// is within the radius, not for every leaf tested.
override LAZY: u32 = 0u;
// EQUAL = 1 (boruvka.ts, RoundPasses.equalSubtrees): a subtree of copies of one point is tested as its least-index
// leaf (equal_leaf) instead of being descended.
override EQUAL: u32 = 0u;

struct Nearest {
  // Key of the best candidate, NONE for none.
  key: u32,
  // Its Morton position, NONE for none.
  other: u32,
  // The final radius: the key found, or the radius searched in vain (a lower bound for later rounds).
  radius: u32,
}

// Never overflows: a root-to-leaf path has at most codeBits + 32 ≤ 96 internal nodes (layout.ts STACK_SIZE),
// and the stack holds at most one pending sibling per level.
const STACK: u32 = 100u;

// Squared distance from Morton position j's point to the box of internal node `node` (0 inside; a leaf has no box:
// its key is computed from the points, below), its record read in either box format (bvh/boxget.wgsl: u16 boxes
// contain the f32 ones, so the bound stays a lower bound). On a periodic axis the gap is the smaller of the direct gap and the gap around the torus, each computed with the
// point distance's monotone steps so that it bounds every point of the box from below (src/knn/keys.cpu.ts).
// Also sets *flat: the box is one point (f32 boxes only: lo and hi words equal on every axis), so every point under
// the node is that point, bit for bit (the refit's f32 boxes are the points' exact minima and maxima).
fn box_d2(node: u32, j: u32, q: array<f32, D>, flat: ptr<function, bool>) -> f32 {
  let base = node * BOXW;
  var s = 0.0;
  var diff = select(0u, 1u, BOX16 != 0u);
  // Important! Records in the first box part (every record below ~8.9·10^7 3D points on the H100, ~1.8·10^8 with
  // u16 boxes) are read from its binding directly: going through box_word() for every word slows the traversal
  // (bench/RESULTS.md). u16 boxes keep both ends in word k (the f32 format's hi word is read only for f32).
  // u16: the frame's words (bvh/boxget.wgsl), the same for every thread.
  let f = box_frame_word(u.n);
  if (BOX_MULTI == 0u || base < BOX_PART_WORDS) {
    for (var k = 0u; k < D; k++) {
      let lw = boxes0[base + k];
      var hw = lw;
      var fo = 0u;
      var fc = 0u;
      if (BOX16 == 0u) {
        hw = boxes0[base + D + k];
        diff = diff | (lw ^ hw);
      } else {
        fo = frame_word(f + k);
        fc = frame_word(f + D + k);
      }
      let b = box_interval(lw, hw, fo, fc);
      s = add_square(s, axis_gap(query_coord(j, k, q), b.x, b.y, k), u.one);
    }
  } else {
    for (var k = 0u; k < D; k++) {
      let lw = box_word(base + k);
      var hw = lw;
      var fo = 0u;
      var fc = 0u;
      if (BOX16 == 0u) {
        hw = box_word(base + D + k);
        diff = diff | (lw ^ hw);
      } else {
        fo = box_word(f + k);
        fc = box_word(f + D + k);
      }
      let b = box_interval(lw, hw, fo, fc);
      s = add_square(s, axis_gap(query_coord(j, k, q), b.x, b.y, k), u.one);
    }
  }
  *flat = diff == 0u;
  return s;
}

// Exact duplicates (issue 19's note: all-equal inputs were quadratic). Internal node c's points are all one point
// (box_d2's flat), so every leaf under it has the same distance to the query, and the sort's (code, index) order
// (bvh/layout.ts: equal points have equal codes) puts them in original-index order: its leftmost leaf f has the
// least index, f + 1 (also under c: an internal node has two leaves or more) the next. The tie-break (key, min
// index, max index) prefers, for one query, the least other index among equal keys, so the subtree's best candidate
// is f, or f + 1 when f lies in the query's component, and no other leaf of c can beat it: returns that leaf's Morton
// position, to be tested as a leaf instead of descending (which visited every copy: no box bound prunes at radius
// 0), or NONE to descend as before — when f and f + 1 both lie in the query's component, or under mutual
// reachability unless the leaf's core is the subtree's least (`mc`; every other leaf's key is then at least its
// key, since the distance term is the same) and no scale cut applies (a key below the cut would not prove the
// larger keys under c below it too).
fn equal_leaf(c: u32, comp: u32, mc: f32) -> u32 {
  var node = c;
  while (node < u.n - 1u) { node = links[node].x; }
  var k = node - (u.n - 1u);
  if (label[k] == comp) {
    k += 1u;
    if (label[k] == comp) { return NONE; }
  }
  if (u.mr != 0u && (core2[k] != mc || u.cut != 0u)) { return NONE; }
  return k;
}

// Word i of the box array where the frame lies: the first part's binding when every BVH fits it (BOX_MULTI = 0).
fn frame_word(i: u32) -> u32 {
  if (BOX_MULTI == 0u) { return boxes0[i]; }
  return box_word(i);
}

// Coordinate k of the query, Morton position j: from its registers with QREG, else from `points`.
fn query_coord(j: u32, k: u32, q: array<f32, D>) -> f32 {
  if (QREG != 0u) { return q[k]; }
  return points[j * D + k];
}

// The gap from x to [lo, hi] on axis k (0 inside); on a periodic axis the smaller of the direct gap and the gap
// around the torus.
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

fn nearest_of(j: u32) -> Nearest {
  let comp = label[j];
  let me = order[j];
  // The upper bound is a key of edge_key(), as every leaf's key here: the bound's own pair comes out exactly at it
  // and is accepted (`<=`), so no slack widens it (emst/common.wgsl, SLACK).
  var radius = ub[comp];
  var myCore = 0.0;
  if (u.mr != 0u) { myCore = core2[j]; }
  var q: array<f32, D>;
  if (QREG != 0u) {
    for (var k = 0u; k < D; k++) { q[k] = points[j * D + k]; }
  }
  // FIRST: the query's own leaf, the one subtree in its component.
  let own = u.n - 1u + j;
  var bestKey = NONE;
  var bestOther = NONE;
  var bestLo = NONE;
  var bestHi = NONE;
  var stack: array<u32, STACK>;
  var stackBound: array<u32, STACK>;
  var sp = 0u;
  var rec = u.n - 1u; // the header record: its left child is the root
  loop {
    let l = links[rec];
    var cl = vec2u(NONE, NONE);
    if (FIRST == 0u) { cl = childLabel[rec]; }
    var lower = array<u32, 2>(NONE, NONE);
    for (var side = 0u; side < 2u; side++) {
      let c = select(l.x, l.y, side == 1u);
      if (c == NONE || select(cl.x, cl.y, side == 1u) == comp || (FIRST != 0u && c == own)) { continue; }
      if (c >= u.n - 1u) {
        // A leaf: its key is computed exactly as the upper bounds' keys are (no box test, which a GPU may round
        // differently by fusing multiply-adds).
        let k = c - (u.n - 1u);
        var key: u32;
        if (QREG != 0u) { key = edge_key_from(q, j, k); } else { key = edge_key(j, k); }
        if (LAZY != 0u && (key < u.cut || key > radius)) { continue; }
        let other = order[k];
        let lo = min(me, other);
        let hi = max(me, other);
        if (key >= u.cut && key <= radius && edge_less(key, lo, hi, bestKey, bestLo, bestHi)) {
          bestKey = key;
          bestOther = k;
          bestLo = lo;
          bestHi = hi;
          radius = key;
        }
        continue;
      }
      var flat = false;
      var lb = box_d2(c, j, q, &flat);
      if (u.mr != 0u) {
        let mc = select(minCore2[rec].x, minCore2[rec].y, side == 1u);
        lb = max(max(lb * u.ia2, myCore), mc);
      }
      let lbBits = bitcast<u32>(lb);
      // Prune only beyond a few ulps of slack: the box bound is computed unlike the keys (emst/common.wgsl, SLACK),
      // and a subtree whose point lies exactly at the radius must still be visited.
      if (lbBits > radius + SLACK) { continue; }
      // A subtree of copies of one point: only its least-index leaf can win (equal_leaf), tested as the leaf above
      // (repeated here: one path for both cost ~3 % on lavapipe).
      if (EQUAL != 0u && flat) {
        let k = equal_leaf(c, comp, select(minCore2[rec].x, minCore2[rec].y, side == 1u));
        if (k != NONE) {
          var key: u32;
          if (QREG != 0u) { key = edge_key_from(q, j, k); } else { key = edge_key(j, k); }
          let other = order[k];
          let lo = min(me, other);
          let hi = max(me, other);
          if (key >= u.cut && key <= radius && edge_less(key, lo, hi, bestKey, bestLo, bestHi)) {
            bestKey = key;
            bestOther = k;
            bestLo = lo;
            bestHi = hi;
            radius = key;
          }
          continue;
        }
      }
      lower[side] = lbBits;
    }
    // Push the farther internal child first so that the nearer is visited first.
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
    // Pop the next node still within the radius.
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
  return Nearest(bestKey, bestOther, radius);
}
