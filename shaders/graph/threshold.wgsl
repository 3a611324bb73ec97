// ECL-MST's filtering threshold (seed 000, §3.2): the P.pick-th smallest weight key among P.samples weights
// sampled at hash(i) mod P.slots, into g_state[ST_THRESHOLD]. One thread; CPU twin: src/graph/threshold.ts.
// Includes: common/grid, unionfind/unionfind, graph/base, graph/common, graph/parent. Binding 3: the weights.

@group(0) @binding(3) var<storage, read> e_w: array<u32>;

const MAX_SAMPLES: u32 = 20u;

fn sample_hash(i: u32) -> u32 {
  var v = i;
  v = ((v >> 16u) ^ v) * 0x45d9f3bu;
  v = ((v >> 16u) ^ v) * 0x45d9f3bu;
  return (v >> 16u) ^ v;
}

@compute @workgroup_size(1)
fn threshold() {
  var s: array<u32, MAX_SAMPLES>;
  let count = min(P.samples, MAX_SAMPLES);
  for (var i = 0u; i < count; i++) {
    let k = weight_key(e_w[sample_hash(i) % P.slots]);
    var j = i;
    while (j > 0u && s[j - 1u] > k) {
      s[j] = s[j - 1u];
      j--;
    }
    s[j] = k;
  }
  atomicStore(&g_state[ST_THRESHOLD], s[min(P.pick, count - 1u)]);
}
