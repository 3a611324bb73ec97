// End of a round: every point's label becomes its union-find root, and every component slot is reset for the
// next round (upper bound +inf, best edge NONE). Also run once before the first round. The best max index shares the
// upper bounds' buffer (issue 19's memory; emst/bestmax.wgsl says why it needs no reset).
// Entry `fused` (boruvka.ts, RoundPasses.fusedLabels) also writes the next round's label changes (emst/changes.wgsl)
// from the roots, and resets only the slots of roots: a slot is only ever indexed by a label, every label is a root,
// and a root was a root in every earlier round too, so its slot was reset every round (all were, by the first run).
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read_write> uf_parent: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> label: array<u32>;
@group(0) @binding(3) var<storage, read_write> ub: array<u32>;
@group(0) @binding(4) var<storage, read_write> best: array<vec2u>;
// The next round's label changes (entry `fused` only).
@group(0) @binding(5) var<storage, read_write> chg: array<u32>;

var<workgroup> wgDone: u32;
var<workgroup> wgRoot: array<u32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var i = thread_index(wid, nwg, lid); i < u.n; i += grid_threads(nwg)) {
    label[i] = uf_find(i);
    ub[i] = INF_KEY;
    best[i] = vec2u(NONE, NONE);
  }
}

@compute @workgroup_size(WG)
fn fused(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl); read once, uniformly, as a barrier follows.
  if (lid == 0u) { wgDone = label[u.n]; }
  if (workgroupUniformLoad(&wgDone) != 0u) { return; }
  // Tiles of WG points, striding by the grid (emst/common.wgsl, grid_threads).
  for (var base = group_index(wid, nwg) * WG; base < u.n; base += grid_threads(nwg)) {
    let i = base + lid;
    var root = NONE;
    if (i < u.n) {
      root = uf_find(i);
      label[i] = root;
      if (root == i) {
        ub[i] = INF_KEY;
        best[i] = vec2u(NONE, NONE);
      }
    }
    // Important! The previous tile's reads of wgRoot are done before it is overwritten.
    workgroupBarrier();
    wgRoot[lid] = root;
    workgroupBarrier();
    if (i < u.n) {
      // Roots do not change within the dispatch (no union runs), so the neighbour's root is its new label.
      var next = NONE;
      if (i + 1u < u.n) {
        if (lid + 1u < WG) {
          next = wgRoot[lid + 1u];
        } else {
          next = uf_find(i + 1u);
        }
      }
      chg[i] = select(0u, 1u, i + 1u < u.n && root != next);
    }
  }
}

// Entry `tiles` (RoundPasses.tileScan): as `fused`, but the changes go out as bits and per-tile counts
// (emst/common.wgsl, tile_count), so that the label scan runs over ⌈n / 256⌉ counts instead of n words.
var<workgroup> wgBits: array<atomic<u32>, 8>;

@compute @workgroup_size(WG)
fn tiles(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) { wgDone = label[u.n]; }
  if (workgroupUniformLoad(&wgDone) != 0u) { return; }
  let bits = tile_bits(u.n);
  for (var base = group_index(wid, nwg) * WG; base < u.n; base += grid_threads(nwg)) {
    let i = base + lid;
    var root = NONE;
    if (i < u.n) {
      root = uf_find(i);
      label[i] = root;
      if (root == i) {
        ub[i] = INF_KEY;
        best[i] = vec2u(NONE, NONE);
      }
    }
    // Important! The previous tile's reads of wgRoot and wgBits are done before they are overwritten.
    workgroupBarrier();
    wgRoot[lid] = root;
    if (lid < 8u) { atomicStore(&wgBits[lid], 0u); }
    workgroupBarrier();
    if (i + 1u < u.n) {
      var next: u32;
      if (lid + 1u < WG) {
        next = wgRoot[lid + 1u];
      } else {
        next = uf_find(i + 1u);
      }
      if (root != next) { atomicOr(&wgBits[lid / 32u], 1u << (lid % 32u)); }
    }
    workgroupBarrier();
    let tile = base / 256u;
    if (lid < 8u) { chg[bits + 8u * tile + lid] = atomicLoad(&wgBits[lid]); }
    if (lid == 0u) {
      var c = 0u;
      for (var w = 0u; w < 8u; w++) { c += countOneBits(atomicLoad(&wgBits[w])); }
      chg[tile] = c;
    }
  }
}
