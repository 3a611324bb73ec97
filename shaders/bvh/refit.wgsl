// Bottom-up refit of the boxes (and minIndex) of a Karras hierarchy, correct under WebGPU's memory model.
// CPU twin: src/bvh/refit.cpu.ts; layout: src/bvh/layout.ts.
//
// Important! WGSL atomics are relaxed and workgroups are unordered, so the usual "the second thread to reach a
// node reads its sibling's box" is not guaranteed to see that box (DESIGN.md). Here boxes are exchanged only
// through the atomics themselves: every component c of a node's box (2·D words, plus minIndex) is accumulated
// with atomicMax — minima as ~order(x), maxima as order(x), minIndex as ~index, so 0 (written by karras.wgsl; for
// minIndex, refit.ts's clear) is the identity — and each word receives exactly two atomicMax, one per child. The
// one whose atomicMax returns non-zero came second in that word's modification order, so the returned value is its
// sibling's contribution and it alone knows the final value: it stores the final f32 bits there and carries
// component c up to the parent. Components travel independently (a thread may own some and not others); a thread stops when it owns
// none. Per-location coherence and atomicity of read-modify-write are all this needs.

//
// Small subtrees skip the atomics: a node of at most DIRECT leaves gets its box and minIndex from one thread that
// scans its leaf range (ranges[], from karras.wgsl) in the Morton-ordered points, written by earlier dispatches,
// so plain reads are safe. Only nodes with more than DIRECT leaves are reached by the atomic walk, which starts
// at the children (leaves or directly scanned nodes) of such nodes. One thread per leaf (t < n) and one per
// internal node (t = n + i).
//
// Every array is reached through accessors the composer generates with their bindings from @binding(1) on (host
// side: src/bvh/refit.ts; src/gpu/bigarray.ts), each array whole or in parts where it exceeds one binding:
// sorted_get, order_get, parents_get, ranges_get (read), and mins_* / boxes_* (atomic u32 words: _store, _max).
// mins (layout.ts, "Records"): two words a record, minIndex(left) then minIndex(right), so the slot of the node
// whose parent word is ps = (record << 1) | side is word ps itself. Zeroed by refit.ts before this dispatch.
//
// Box formats (bvh/box.wgsl, src/bvh/layout.ts): BOX16 = 0 stores f32 boxes (2·D components, as above). BOX16 = 1
// (u16 cells of the frame the build copied after the last record) turns each node's f32 box into D words
// | qhi | 0xffff − qlo | (box_acc16) before it goes up: the componentwise max of two such words is their union's, and
// a word is never 0, so the same exchange works word by word — the second atomicMax returns the sibling's word
// exactly (the first went onto 0), and its thread stores the union (box_union16, box_store16). Quantising is
// monotone, so the quantised union of the children is the quantised tight box (the CPU twin quantises the f32 one).
struct RefitParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> u: RefitParams;

// DIRECT (a constant from src/bvh/lbvh.ts): nodes of at most DIRECT leaves are refitted by a direct scan.

// Components a thread carries: the box's words (2·D f32 order values, or D u16 words: BOXW), then ~minIndex.
const C: u32 = 2u * D + 1u;
const CB: u32 = BOXW;

// Component c of two contributions united: the max of order values (f32) or of both halves (u16).
fn unite(old: u32, v: u32) -> u32 {
  if (BOX16 != 0u) { return box_union16(old, v); }
  return max(old, v);
}

// The stored word of component c < CB.
fn stored(c: u32, v: u32) -> u32 {
  if (BOX16 != 0u) { return box_store16(v); }
  return select(f32_unorder(v), f32_unorder(~v), c < D);
}

// BOX16: the f32 box in v (~order(lo) at a, order(hi) at D + a) as D words of u16 cells at v[0 … D) of the frame after
// the last of the n − 1 records; then ~minIndex moves from v[2·D] to v[D].
fn quantise(v: ptr<function, array<u32, C>>, n: u32) {
  let fw = BOXW * max(n, 2u) - BOXW;
  for (var a = 0u; a < D; a++) {
    let origin = bitcast<f32>(boxes_load(fw + a));
    let cell = bitcast<f32>(boxes_load(fw + D + a));
    let qlo = box_quant_lo(bitcast<f32>(f32_unorder(~(*v)[a])), origin, cell);
    let qhi = box_quant_hi(bitcast<f32>(f32_unorder((*v)[D + a])), origin, cell);
    (*v)[a] = box_acc16(qlo, qhi);
  }
  (*v)[D] = (*v)[2u * D];
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  let n = u.n;
  if (t >= 2u * n - 1u) { return; }
  let header = n - 1u;
  // v: the node's box (minima as ~order, maxima as order) and ~minIndex, as the atomics accumulate them.
  var v: array<u32, C>;
  var ps: u32;
  if (t < n) {
    // Leaf j: box = point, minIndex = original index.
    let j = t;
    ps = parents_get(n - 1u + j);
    for (var a = 0u; a < D; a++) {
      let o = f32_order(sorted_get(j * D + a));
      v[a] = ~o;
      v[D + a] = o;
    }
    v[2u * D] = ~order_get(j);
  } else {
    // Internal node i: scanned directly when it has at most DIRECT leaves, else left to the atomic walk.
    let i = t - n;
    let r = node_range(i, ranges_get(i));
    if (r.y - r.x >= DIRECT) { return; }
    for (var a = 0u; a < D; a++) {
      let o = f32_order(sorted_get(r.x * D + a));
      v[a] = ~o;
      v[D + a] = o;
    }
    var m = order_get(r.x);
    for (var j = r.x + 1u; j <= r.y; j++) {
      for (var a = 0u; a < D; a++) {
        let o = f32_order(sorted_get(j * D + a));
        v[a] = max(v[a], ~o);
        v[D + a] = max(v[D + a], o);
      }
      m = min(m, order_get(j));
    }
    v[2u * D] = ~m;
    ps = parents_get(i);
  }
  // The node's minIndex slot in its parent's record (mins word ps) has one writer: this thread. So has a directly
  // scanned node's own box; a leaf has no box (layout.ts: its box is its point).
  mins_store(ps, ~v[2u * D]);
  if (t >= n) {
    if (BOX16 != 0u) { quantise(&v, n); }
    let base = (t - n) * CB;
    for (var c = 0u; c < CB; c++) { boxes_store(base + c, stored(c, v[c])); }
  }
  // Walk up: `node` is the internal node whose box (its own record) and minIndex (in its parent's record of mins)
  // the owned components enter next. A parent of at most DIRECT leaves is scanned by its own thread.
  var node = ps >> 1u;
  if (node == header) { return; }
  let pr = node_range(node, ranges_get(node));
  if (pr.y - pr.x < DIRECT) { return; }
  // A leaf going up (most stop at a directly scanned parent) quantises its point now.
  if (t < n && BOX16 != 0u) { quantise(&v, n); }
  // Two passes (src/bvh/refit.ts: PASS_BOX, PASS_MIN): each carries only its components up; the other pass's
  // arrays are unbound, their accessors return 0 and write nothing, so the reads and stores above cost nothing.
  var own: array<bool, C>;
  for (var c = 0u; c < C; c++) { own[c] = select(PASS_BOX != 0u, PASS_MIN != 0u, c == CB); }
  loop {
    if (node == header) { break; }
    let pp = parents_get(node);
    let rb = node * CB;
    var owns_any = false;
    for (var c = 0u; c < CB; c++) {
      if (!own[c]) { continue; }
      let old = boxes_max(rb + c, v[c]);
      if (old == 0u) { own[c] = false; continue; }
      v[c] = unite(old, v[c]);
      boxes_store(rb + c, stored(c, v[c]));
      owns_any = true;
    }
    if (own[CB]) {
      let w = pp;
      let old = mins_max(w, v[CB]);
      if (old == 0u) {
        own[CB] = false;
      } else {
        v[CB] = max(old, v[CB]);
        mins_store(w, ~v[CB]);
        owns_any = true;
      }
    }
    if (!owns_any) { break; }
    node = pp >> 1u;
  }
}
