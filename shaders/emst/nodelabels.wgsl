// Node label uniformity, step 2: for both children of every record (layout: src/bvh/layout.ts), the component
// all its leaves share, or NONE when they differ. A leaf child's label is its own.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> prefix: array<u32>;
@group(0) @binding(3) var<storage, read> links: array<vec2u>;
// The other end of each internal node's leaf range (bvh/range.wgsl).
@group(0) @binding(4) var<storage, read> ranges: array<u32>;
@group(0) @binding(5) var<storage, read_write> childLabel: array<vec2u>;
// The edges so far (merge.wgsl): none before the first round's merge, when childLabel still holds another array.
@group(0) @binding(6) var<storage, read> edgeCount: array<u32>;

// INCREMENTAL = 1 (RoundPasses.incremental): a child whose leaves all shared one component last round still does (components
// only merge), and that component's new label is label[its old label] (every point's label is its root, old roots
// included) — one read of a hot word instead of the child's range and changes. Computed from scratch in a round
// before any edge, when childLabel holds no labels yet (it is lent: boruvka.ts, BoruvkaBorrow).
override INCREMENTAL: u32 = 0u;

// Whether last round's childLabel may be reused (read by each thread: the same word for all).
fn reuse() -> bool {
  return INCREMENTAL != 0u && edgeCount[0] != 0u;
}

fn child_label(c: u32, old: u32, again: bool) -> u32 {
  if (c == NONE) { return NONE; }
  if (c >= u.n - 1u) { return label[c - (u.n - 1u)]; }
  if (again && old != NONE) { return label[old]; }
  let r = node_range(c, ranges[c]);
  return select(NONE, label[r.x], prefix[r.y] == prefix[r.x]);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let again = reuse();
  for (var r = thread_index(wid, nwg, lid); r < u.n; r += grid_threads(nwg)) {
    let l = links[r];
    var old = vec2u(NONE, NONE);
    if (again) { old = childLabel[r]; }
    childLabel[r] = vec2u(child_label(l.x, old.x, again), child_label(l.y, old.y, again));
  }
}

// Entry `tiles` (RoundPasses.tileScan): the changes as scanned tile counts and bits (emst/common.wgsl, tile_count).
// The changes before point j: its tile's prefix plus the bits of its tile below j.
fn changes_before(j: u32) -> u32 {
  let tile = j / 256u;
  let first = tile_bits(u.n) + 8u * tile;
  let last = tile_bits(u.n) + j / 32u;
  var c = prefix[tile];
  for (var w = first; w < last; w++) { c += countOneBits(prefix[w]); }
  let r = j % 32u;
  if (r != 0u) { c += countOneBits(prefix[last] & ((1u << r) - 1u)); }
  return c;
}

fn child_label_tiles(c: u32, old: u32, again: bool) -> u32 {
  if (c == NONE) { return NONE; }
  if (c >= u.n - 1u) { return label[c - (u.n - 1u)]; }
  if (again && old != NONE) { return label[old]; }
  let r = node_range(c, ranges[c]);
  return select(NONE, label[r.x], changes_before(r.y) == changes_before(r.x));
}

@compute @workgroup_size(WG)
fn tiles(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let again = reuse();
  for (var r = thread_index(wid, nwg, lid); r < u.n; r += grid_threads(nwg)) {
    let l = links[r];
    var old = vec2u(NONE, NONE);
    if (again) { old = childLabel[r]; }
    childLabel[r] = vec2u(child_label_tiles(l.x, old.x, again), child_label_tiles(l.y, old.y, again));
  }
}

// Entry `first` (RoundPasses.firstRound): the first round's node labels, with no changes and no scan. Every point is
// then its own component (labels are the union-find's fresh roots), so a leaf child's label is its own and every
// internal child, holding two or more leaves, is mixed (NONE): what `main` and `tiles` compute in that round.
fn child_label_first(c: u32) -> u32 {
  if (c == NONE || c < u.n - 1u) { return NONE; }
  return label[c - (u.n - 1u)];
}

@compute @workgroup_size(WG)
fn first(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var r = thread_index(wid, nwg, lid); r < u.n; r += grid_threads(nwg)) {
    let l = links[r];
    childLabel[r] = vec2u(child_label_first(l.x), child_label_first(l.y));
  }
}
