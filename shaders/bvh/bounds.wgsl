// Scene bounds of n points (D per point) and the quantisation frame. CPU twin: src/bvh/morton.cpu.ts.
//
// `bounds`: every thread max-reduces a strided share of the points in the order of floatorder.wgsl — minima as
// ~order(x), maxima as order(x), so that both are atomicMax with 0 as the identity and the accumulator can be
// cleared with zeros — then the workgroup combines through workgroup atomics and adds one atomicMax per word to
// `acc` (2·D words: ~order(lo) …, order(hi) …).
// frame.wgsl then turns `acc` into the quantisation frame.

struct BoundsParams { n: u32, threads: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> bp: BoundsParams;
@group(0) @binding(1) var<storage, read> points: array<u32>;
@group(0) @binding(2) var<storage, read_write> acc: array<atomic<u32>>;

var<workgroup> wacc: array<atomic<u32>, 2u * D>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  for (var c = lid; c < 2u * D; c += WG) { atomicStore(&wacc[c], 0u); }
  workgroupBarrier();
  var lo: array<u32, D>;
  var hi: array<u32, D>;
  for (var i = thread_index(wid, nwg, lid); i < bp.n; i += bp.threads) {
    for (var a = 0u; a < D; a++) {
      let o = f32_order(points[i * D + a]);
      lo[a] = max(lo[a], ~o);
      hi[a] = max(hi[a], o);
    }
  }
  for (var a = 0u; a < D; a++) {
    atomicMax(&wacc[a], lo[a]);
    atomicMax(&wacc[D + a], hi[a]);
  }
  workgroupBarrier();
  for (var c = lid; c < 2u * D; c += WG) { atomicMax(&acc[c], atomicLoad(&wacc[c])); }
}
