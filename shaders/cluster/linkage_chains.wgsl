// Dendrogram steps 3–4 (src/cluster/dendrogram.ts; CPU twin dendrogram.cpu.ts): edges sorted by (sided-parent
// code, rank) form chains; an edge's parent is the next edge of its chain, or the chain's sided parent for its
// last; children follow (a point under its smallest edge, on that edge's side; a chain's last edge on the recorded
// side of its parent; the chain predecessor on the side left over). Every slot is written by exactly one thread.
//
// Sort key (64-bit, .x low word): | 0 | code |, the sort's value e, written at position e: a stable sort on the code's
// bits alone leaves each chain in rank order (the radix sort is stable: src/primitives/radixsort.ts).
// Output: children = | left(i) | right(i) | per merge i (node ids: points < n, merge j is n + j);
// parent[node] for the 2n − 1 nodes, NONE at the root.

struct ChainParams {
  n: u32,
  m: u32,
  p0: u32,
  p1: u32,
}

@group(0) @binding(0) var<uniform> u: ChainParams;
@group(0) @binding(1) var<storage, read> keys: array<vec2u>;
// codes and point_parent are only read, but declared read_write: they share one scratch buffer with `pred`
// (dendrogram.ts), and WebGPU forbids read-only and writable bindings of one buffer in a dispatch.
/** Per edge: its resolved sided-parent code (linkage_rounds.wgsl resolve). */
@group(0) @binding(2) var<storage, read_write> codes: array<u32>;
@group(0) @binding(3) var<storage, read_write> point_parent: array<u32>;
@group(0) @binding(4) var<storage, read_write> sort_keys: array<vec2u>;
@group(0) @binding(5) var<storage, read_write> sort_vals: array<u32>;
@group(0) @binding(6) var<storage, read_write> children: array<u32>;
@group(0) @binding(7) var<storage, read_write> parent: array<u32>;
/** Per edge: the edge below it in its chain (NONE: none). */
@group(0) @binding(8) var<storage, read_write> pred: array<u32>;

const NONE: u32 = 0xffffffffu;

fn code_of(k: vec2u) -> u32 {
  return k.x;
}

@compute @workgroup_size(WG)
fn pack(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  let c = codes[e];
  sort_keys[e] = vec2u(c, 0u);
  sort_vals[e] = e;
  children[2u * e] = NONE;
  children[2u * e + 1u] = NONE;
  pred[e] = NONE;
}

@compute @workgroup_size(WG)
fn chains(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.m) { return; }
  let e = sort_vals[j];
  let c = code_of(sort_keys[j]);
  if (j + 1u < u.m && code_of(sort_keys[j + 1u]) == c) {
    let f = sort_vals[j + 1u];
    parent[u.n + e] = u.n + f;
    pred[f] = e;
  } else if (c == 2u * u.m) {
    parent[u.n + e] = NONE;
  } else {
    parent[u.n + e] = u.n + (c >> 1u);
    children[c] = u.n + e; // 2p + side
  }
}

@compute @workgroup_size(WG)
fn points(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let x = thread_index(wid, nwg, lid);
  if (x >= u.n) { return; }
  let a = point_parent[x];
  parent[x] = u.n + a;
  children[2u * a + select(1u, 0u, keys[a].x == x)] = x;
}

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  if (children[2u * e] == NONE) { children[2u * e] = u.n + pred[e]; }
  if (children[2u * e + 1u] == NONE) { children[2u * e + 1u] = u.n + pred[e]; }
}
