// The extremes of one statistic's values that MiSTree's default bins need (src/stats/histogram.ts binEdges: the
// largest value, for log bins the smallest positive one), and how many values there are. CPU twin:
// src/stats/binning.cpu.ts extremaCpu. Values are non-negative float32 bit patterns or u32 (degrees): both order
// as u32; patterns ≥ 2^31 (negative floats) are left out. Value i is words[i · stride + offset], kept where
// mask[i] ≠ 0 when `masked` (the walks that report a branch, stats/walk.wgsl).
//   out[slot] = max bits, out[slot + 1] = ~(smallest positive bits) (atomicMax of the complement: 0 = none),
//   out[slot + 2] = count. The caller clears out.
struct ExtremaParams { count: u32, stride: u32, offset: u32, masked: u32, slot: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> u: ExtremaParams;
@group(0) @binding(1) var<storage, read> words: array<u32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<atomic<u32>>;

var<workgroup> wmax: atomic<u32>;
var<workgroup> wminInv: atomic<u32>;
var<workgroup> wcount: atomic<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    atomicStore(&wmax, 0u);
    atomicStore(&wminInv, 0u);
    atomicStore(&wcount, 0u);
  }
  workgroupBarrier();
  // A grid-stride loop: a few thousand workgroups cover any count, each flushing its three words once.
  let threads = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < u.count; i += threads) {
    if (u.masked != 0u && mask[i] == 0u) { continue; }
    let w = words[i * u.stride + u.offset];
    atomicAdd(&wcount, 1u);
    if (w < 0x80000000u) {
      atomicMax(&wmax, w);
      if (w > 0u) { atomicMax(&wminInv, ~w); }
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&wcount);
    if (c > 0u) {
      atomicMax(&out[u.slot], atomicLoad(&wmax));
      atomicMax(&out[u.slot + 1u], atomicLoad(&wminInv));
      atomicAdd(&out[u.slot + 2u], c);
    }
  }
}
