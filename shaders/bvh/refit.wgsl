// Bottom-up refit of the boxes (and minIndex) of a Karras hierarchy, correct under WebGPU's memory model.
// CPU twin: src/bvh/refit.cpu.ts; layout: src/bvh/layout.ts.
//
// Important! WGSL atomics are relaxed and workgroups are unordered, so the usual "the second thread to reach a
// node reads its sibling's box" is not guaranteed to see that box (DESIGN.md). Here boxes are exchanged only
// through the atomics themselves: every component c of a node's box (2·D words, plus minIndex) is accumulated
// with atomicMax — minima as ~order(x), maxima as order(x), minIndex as ~index, so 0 (written by karras.wgsl) is
// the identity — and each word receives exactly two atomicMax, one per child. The one whose atomicMax returns
// non-zero came second in that word's modification order, so the returned value is its sibling's contribution
// and it alone knows the final value: it stores the final f32 bits there and carries component c up to the
// parent. Components travel independently (a thread may own some and not others); a thread stops when it owns
// none. Per-location coherence and atomicity of read-modify-write are all this needs.

struct RefitParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> u: RefitParams;
@group(0) @binding(1) var<storage, read> sorted: array<u32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read> parents: array<u32>;
@group(0) @binding(4) var<storage, read_write> links: array<atomic<u32>>;
// The box array in BOX_PARTS bindings of BOX_PART_WORDS words (src/bvh/layout.ts, "Box parts").
@group(0) @binding(5) var<storage, read_write> boxes0: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> boxes1: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> boxes2: array<atomic<u32>>;

fn box_store(i: u32, v: u32) {
  if (BOX_MULTI == 0u || i < BOX_PART_WORDS) {
    atomicStore(&boxes0[i], v);
  } else if (i < 2u * BOX_PART_WORDS) {
    atomicStore(&boxes1[i - BOX_PART_WORDS], v);
  } else {
    atomicStore(&boxes2[i - 2u * BOX_PART_WORDS], v);
  }
}

fn box_max(i: u32, v: u32) -> u32 {
  if (BOX_MULTI == 0u || i < BOX_PART_WORDS) { return atomicMax(&boxes0[i], v); }
  if (i < 2u * BOX_PART_WORDS) { return atomicMax(&boxes1[i - BOX_PART_WORDS], v); }
  return atomicMax(&boxes2[i - 2u * BOX_PART_WORDS], v);
}

const C: u32 = 2u * D + 1u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  let n = u.n;
  if (j >= n) { return; }
  let header = n - 1u;
  // The leaf's own slot in its parent's record: box = point, minIndex = original index (one writer).
  var v: array<u32, C>;
  var own: array<bool, C>;
  let ps = parents[n - 1u + j];
  let base = (ps >> 1u) * 4u * D + (ps & 1u) * 2u * D;
  for (var a = 0u; a < D; a++) {
    let bits = sorted[j * D + a];
    box_store(base + a, bits);
    box_store(base + D + a, bits);
    let o = f32_order(bits);
    v[a] = ~o;
    v[D + a] = o;
  }
  let index = order[j];
  atomicStore(&links[(ps >> 1u) * 4u + 2u + (ps & 1u)], index);
  v[2u * D] = ~index;
  for (var c = 0u; c < C; c++) { own[c] = true; }
  // Walk up: `node` is the internal node whose box (in its parent's record) the owned components enter next.
  var node = ps >> 1u;
  loop {
    if (node == header) { break; }
    let pp = parents[node];
    let rb = (pp >> 1u) * 4u * D + (pp & 1u) * 2u * D;
    var owns_any = false;
    for (var c = 0u; c < 2u * D; c++) {
      if (!own[c]) { continue; }
      let old = box_max(rb + c, v[c]);
      if (old == 0u) { own[c] = false; continue; }
      v[c] = max(old, v[c]);
      box_store(rb + c, select(f32_unorder(v[c]), f32_unorder(~v[c]), c < D));
      owns_any = true;
    }
    if (own[2u * D]) {
      let w = (pp >> 1u) * 4u + 2u + (pp & 1u);
      let old = atomicMax(&links[w], v[2u * D]);
      if (old == 0u) {
        own[2u * D] = false;
      } else {
        v[2u * D] = max(old, v[2u * D]);
        atomicStore(&links[w], ~v[2u * D]);
        owns_any = true;
      }
    }
    if (!owns_any) { break; }
    node = pp >> 1u;
  }
}
