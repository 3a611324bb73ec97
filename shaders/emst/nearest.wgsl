// The nearest point in a different component, for every point (seed 002 §3, Algorithm 2): a stack traversal of
// the BVH (layout: src/bvh/layout.ts) from the header record, nearer child first, that
//  - skips subtrees whose leaves all lie in the query's component ("Optimization 1", childLabel),
//  - prunes by the radius, which starts at the component's upper bound and shrinks to the best key found, keeping
//    `<=` so that candidates equal to the radius still reach the (key, min index, max index) tie-break,
//  - for mutual reachability prunes by max(box distance² / alpha², own core², smallest core² in the subtree), as
//    fast_hdbscan does.
// Writes cand[j] = (key, other Morton position), key NONE for none (the original indices of the edge's ends are
// order[j] and order[other]: later kernels take min and max of them).
//
// Beyond the paper: points whose previous candidate is still outgoing keep it (see main), and bounded points skip
// the traversal. A point's distance to the nearest point of another
// component never decreases from round to round (its component only grows, the others only shrink), so the final
// radius of its last traversal (the key it found, or the radius it searched in vain) bounds this round's from
// below; when that exceeds its component's current upper bound, the point cannot hold the component's shortest
// edge and returns at once (u.skip = 1; `pointBound` keeps the bounds). The stack also keeps each pushed node's
// lower bound, so nodes that fell outside the shrinking radius are dropped without reading their record.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> core2: array<f32>;
@group(0) @binding(3) var<storage, read> order: array<u32>;
@group(0) @binding(4) var<storage, read> links: array<vec4u>;
@group(0) @binding(5) var<storage, read> boxes0: array<f32>;
@group(0) @binding(6) var<storage, read> childLabel: array<vec2u>;
@group(0) @binding(7) var<storage, read> label: array<u32>;
@group(0) @binding(8) var<storage, read> ub: array<u32>;
@group(0) @binding(9) var<storage, read> minCore2: array<vec2f>;
@group(0) @binding(10) var<storage, read_write> cand: array<vec2u>;
@group(0) @binding(11) var<storage, read_write> pointBound: array<u32>;
// The points to traverse (emst/active.wgsl) and their count; u.skip = 0 traverses every point.
@group(0) @binding(12) var<storage, read> activeList: array<u32>;
@group(0) @binding(13) var<storage, read> activeCount: array<u32>;
// The second and third box parts (bvh/boxread.wgsl).
@group(0) @binding(14) var<storage, read> boxes1: array<f32>;
@group(0) @binding(15) var<storage, read> boxes2: array<f32>;

// Never overflows: a root-to-leaf path has at most codeBits + 32 ≤ 96 internal nodes (layout.ts STACK_SIZE),
// and the stack holds at most one pending sibling per level.
const STACK: u32 = 100u;

// Squared distance from Morton position j's point to the box of child `side` of record `rec` (0 inside). On a
// periodic axis the gap is the smaller of the direct gap and the gap around the torus, each computed with the
// point distance's monotone steps so that it bounds every point of the box from below (src/emst/keys.cpu.ts).
fn box_d2(rec: u32, side: u32, j: u32) -> f32 {
  let base = rec * 4u * D + side * 2u * D;
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    let x = points[j * D + k];
    let lo = box_word(base + k);
    let hi = box_word(base + D + k);
    var t = max(max(lo - x, x - hi), 0.0);
    if (PERIODIC != 0u) {
      let L = period_of(k);
      if (x < lo) {
        t = min(t, L - (hi - x));
      } else if (x > hi) {
        t = min(t, L - (x - lo));
      }
    }
    s = s + t * t;
  }
  return s;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  var j = t;
  if (u.skip != 0u) {
    // Important! Only the points emst/active.wgsl kept: the others either keep last round's candidate — whose
    // other end still lies in another component, so it is still their nearest other-component point (last
    // round's search was exact within its radius, and the other components have only lost points since) — or
    // are bounded below their component's upper bound (their candidate was set to NONE there).
    if (t >= activeCount[0]) { return; }
    j = activeList[t];
  } else if (j >= u.n) {
    return;
  }
  let comp = label[j];
  let me = order[j];
  // Important! The upper bound was computed in another kernel, where the compiler may fuse the multiply-adds of
  // the same distance differently: the bound's own pair can come out a few ulps above it here. Widen it by the
  // slack so that pair is still accepted (a component with no candidate would stall Borůvka).
  var radius = ub[comp];
  if (radius < INF_KEY) { radius += SLACK; }
  var myCore = 0.0;
  if (u.mr != 0u) { myCore = core2[j]; }
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
    let cl = childLabel[rec];
    var lower = array<u32, 2>(NONE, NONE);
    for (var side = 0u; side < 2u; side++) {
      let c = select(l.x, l.y, side == 1u);
      if (c == NONE || select(cl.x, cl.y, side == 1u) == comp) { continue; }
      if (c >= u.n - 1u) {
        // A leaf: its key is computed exactly as the upper bounds' keys are (no box test, which a GPU may round
        // differently by fusing multiply-adds).
        let k = c - (u.n - 1u);
        let key = edge_key(j, k);
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
      var lb = box_d2(rec, side, j);
      if (u.mr != 0u) {
        let mc = select(minCore2[rec].x, minCore2[rec].y, side == 1u);
        lb = max(max(lb * u.ia2, myCore), mc);
      }
      let lbBits = bitcast<u32>(lb);
      // Prune only beyond a few ulps of slack: the box distance and the keys may be rounded differently (fused
      // multiply-adds), and a subtree whose point lies exactly at the radius must still be visited.
      if (lbBits > radius + SLACK) { continue; }
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
  cand[j] = vec2u(bestKey, bestOther);
  pointBound[j] = radius;
}
