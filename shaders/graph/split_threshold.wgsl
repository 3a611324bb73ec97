// ECL-MST's filtering threshold on split arrays: the sampled weights' keys were copied into
// g_state[ST_SAMPLES + i] (eclsplit.ts: the slots of graph/threshold.wgsl's sample_hash, computed on the host by
// threshold.ts's sampleHash), so no binding of the weights is needed; this thread sorts them and stores the P.pick-th
// smallest key as the threshold, as graph/threshold.wgsl does. Includes: common/grid, graph/base, graph/split_common.

const MAX_SAMPLES: u32 = 20u;

@compute @workgroup_size(1)
fn threshold() {
  var s: array<u32, MAX_SAMPLES>;
  let count = min(P.samples, MAX_SAMPLES);
  for (var i = 0u; i < count; i++) {
    let k = weight_key(atomicLoad(&g_state[ST_SAMPLES + i]));
    var j = i;
    while (j > 0u && s[j - 1u] > k) {
      s[j] = s[j - 1u];
      j--;
    }
    s[j] = k;
  }
  atomicStore(&g_state[ST_THRESHOLD], s[min(P.pick, count - 1u)]);
}
