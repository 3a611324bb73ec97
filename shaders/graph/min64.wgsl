// The per-set lightest edge as one 64-bit minimum (feature 'atomic-vec2u-min-max'): binding 3 holds one
// atomic<vec2u> per vertex, the packed record
//   | y: 32 bits weight key (high word) | x: 32 bits edge id (low word) |
// so atomicStoreMin keeps the smallest (weight key, edge id): ECL-MST's 64-bit atomicMin (seed 000, §3.2).
// Empty = (NONE, NONE). Alternative to min32.wgsl; the including kernel needs `enable atomic_vec2u_min_max;`.

@group(0) @binding(3) var<storage, read_write> g_min: array<atomic<vec2u>>;

fn record_min(s: u32, key: u32, id: u32) {
  atomicStoreMin(&g_min[s], vec2u(id, key));
}
