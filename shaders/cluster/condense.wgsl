// hdbscan's condensed tree from the single-linkage dendrogram, on the GPU (src/cluster/condense.rows.ts; CPU twin
// condense.rows.cpu.ts). No kernel per tree level: every per-node fact comes from pointer jumping (O(log depth)
// rounds over all merges), and hdbscan's row order from two radix sorts:
//   - the queued merges (≥ minClusterSize points, or the root) are exactly those hdbscan's breadth-first walk
//     processes; their walk order is (depth, leftmost leaf), the BFS rank of a merge;
//   - every point has one row: it leaves at the queued merge A above the top Y of its runt (Y = the point itself
//     when its parent is queued), at A's λ, in the breadth-first order of Y's subtree: key (rank(A), side of Y,
//     depth below Y, leaf position below Y); a split's two cluster rows take (rank(A), side, 0, 0).
// Merge i is node n + i; `merges[i]` = (left node, right node, size, weight bits). Parent words carry the child's
// side in bit 31 (1: the right child). NONE marks the root's parent and jumps that reached it.

struct CondParams { n: u32, m: u32, mcs: u32, bm: u32, root: u32, maxSplits: u32, p0: u32, p1: u32 }
@group(0) @binding(0) var<uniform> u: CondParams;

const NONE: u32 = 0xffffffffu;
const IDX: u32 = 0x7fffffffu;
const SIDE: u32 = 0x80000000u;

// ---- parents: par[i] of merge i, pparent[p] of point p (with the side bit).
@group(0) @binding(1) var<storage, read> pa_merges: array<vec4u>;
@group(0) @binding(2) var<storage, read_write> pa_par: array<u32>;
@group(0) @binding(3) var<storage, read_write> pa_pparent: array<u32>;

fn pa_set(child: u32, i: u32, side: u32) {
  if (child >= u.n) { pa_par[child - u.n] = i | side; } else { pa_pparent[child] = i | side; }
}

@compute @workgroup_size(WG)
fn parents(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  let mg = pa_merges[i];
  pa_set(mg.x, i, 0u);
  pa_set(mg.y, i, SIDE);
  if (i == u.root) { pa_par[i] = NONE; }
}

// ---- the jumps' first state: jdl = (jump, depth, leaf start, runt top), c = cluster start.
@group(0) @binding(1) var<storage, read> in_merges: array<vec4u>;
@group(0) @binding(2) var<storage, read> in_par: array<u32>;
@group(0) @binding(3) var<storage, read_write> in_jdl: array<vec4u>;
@group(0) @binding(4) var<storage, read_write> in_c: array<u32>;

fn in_size(node: u32) -> u32 {
  if (node >= u.n) { return in_merges[node - u.n].z; }
  return 1u;
}

fn in_queued(i: u32) -> bool { return i == u.root || in_merges[i].z >= u.mcs; }

fn in_split(i: u32) -> bool {
  let mg = in_merges[i];
  return in_queued(i) && in_size(mg.x) >= u.mcs && in_size(mg.y) >= u.mcs;
}

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  let pw = in_par[i];
  if (pw == NONE) {
    in_jdl[i] = vec4u(NONE, 0u, 0u, i);
    in_c[i] = i;
    return;
  }
  let p = pw & IDX;
  let right = (pw & SIDE) != 0u;
  var lead = 0u;
  if (right) { lead = in_size(in_merges[p].x); }
  // Runt top: non-queued merges climb while their parent is not queued; queued ones stay put.
  var top = i;
  if (!in_queued(i) && !in_queued(p)) { top = p; }
  in_jdl[i] = vec4u(p, 1u, lead, top);
  // Cluster start: a queued merge climbs to the nearest split child or the root.
  var cs = i;
  if (in_queued(i) && !in_split(p)) { cs = p; }
  in_c[i] = cs;
}

// ---- one round of pointer jumping (double-buffered: reads the last round's state only).
@group(0) @binding(1) var<storage, read> ju_jdl: array<vec4u>;
@group(0) @binding(2) var<storage, read> ju_c: array<u32>;
@group(0) @binding(3) var<storage, read_write> ju_jdl_out: array<vec4u>;
@group(0) @binding(4) var<storage, read_write> ju_c_out: array<u32>;

@compute @workgroup_size(WG)
fn jump(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  var s = ju_jdl[i];
  let top = ju_jdl[s.w].w;
  if (s.x != NONE) {
    let t = ju_jdl[s.x];
    s = vec4u(t.x, s.y + t.y, s.z + t.z, s.w);
  }
  s.w = top;
  ju_jdl_out[i] = s;
  ju_c_out[i] = ju_c[ju_c[i]];
}

// ---- breadth-first keys of the queued merges: (depth, leaf start); others sort last.
@group(0) @binding(1) var<storage, read> bk_merges: array<vec4u>;
@group(0) @binding(2) var<storage, read> bk_jdl: array<vec4u>;
@group(0) @binding(3) var<storage, read_write> bk_keys: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> bk_vals: array<u32>;

@compute @workgroup_size(WG)
fn bfs_keys(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
            @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  let s = bk_jdl[i];
  if (i == u.root || bk_merges[i].z >= u.mcs) {
    bk_keys[i] = vec2u(s.z, s.y);
  } else {
    bk_keys[i] = vec2u(NONE, NONE);
  }
  bk_vals[i] = i;
}

// ---- ranks and split flags in breadth-first order: jdl.x (free after the jumps) becomes the merge's BFS rank.
@group(0) @binding(1) var<storage, read> rk_keys: array<vec2u>;
@group(0) @binding(2) var<storage, read> rk_vals: array<u32>;
@group(0) @binding(3) var<storage, read> rk_merges: array<vec4u>;
@group(0) @binding(4) var<storage, read_write> rk_jdl: array<vec4u>;
@group(0) @binding(5) var<storage, read_write> rk_flags: array<u32>;

fn rk_size(node: u32) -> u32 {
  if (node >= u.n) { return rk_merges[node - u.n].z; }
  return 1u;
}

@compute @workgroup_size(WG)
fn ranks(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let r = thread_index(wid, nwg, lid);
  if (r >= u.m) { return; }
  let i = rk_vals[r];
  rk_jdl[i].x = r;
  let k = rk_keys[r];
  let mg = rk_merges[i];
  let queued = !(k.x == NONE && k.y == NONE);
  rk_flags[r] = select(0u, 1u, queued && rk_size(mg.x) >= u.mcs && rk_size(mg.y) >= u.mcs);
}

// ---- split numbers: the k-th split in breadth-first order makes clusters n + 1 + 2k (left) and n + 2 + 2k.
@group(0) @binding(1) var<storage, read> sp_vals: array<u32>;
@group(0) @binding(2) var<storage, read> sp_flags: array<u32>;
@group(0) @binding(3) var<storage, read> sp_scan: array<u32>;
@group(0) @binding(4) var<storage, read_write> sp_index: array<u32>;
@group(0) @binding(5) var<storage, read_write> sp_merge: array<u32>;
@group(0) @binding(6) var<storage, read_write> sp_count: array<u32>;

@compute @workgroup_size(WG)
fn splits(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let r = thread_index(wid, nwg, lid);
  if (r >= u.m) { return; }
  let k = sp_scan[r];
  if (sp_flags[r] != 0u) {
    sp_index[sp_vals[r]] = k;
    sp_merge[k] = sp_vals[r];
  }
  if (r == u.m - 1u) { sp_count[0] = k + sp_flags[r]; }
}

// ---- each queued merge's cluster id: its cluster start's (the root: n).
@group(0) @binding(1) var<storage, read> ci_merges: array<vec4u>;
@group(0) @binding(2) var<storage, read> ci_par: array<u32>;
@group(0) @binding(3) var<storage, read> ci_c: array<u32>;
@group(0) @binding(4) var<storage, read> ci_index: array<u32>;
@group(0) @binding(5) var<storage, read_write> ci_cluster: array<u32>;

@compute @workgroup_size(WG)
fn cluster_ids(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  if (!(i == u.root || ci_merges[i].z >= u.mcs)) { return; }
  let x = ci_c[i];
  if (x == u.root) {
    ci_cluster[i] = u.n;
  } else {
    let pw = ci_par[x];
    ci_cluster[i] = u.n + 1u + 2u * ci_index[pw & IDX] + (pw >> 31u);
  }
}

// ---- row keys. 64-bit keys as (low, high) words; fields OR-ed in at bit offsets that may straddle the words.
fn put(key: ptr<function, vec2u>, v: u32, at: u32) {
  if (at >= 32u) {
    (*key).y |= v << (at - 32u);
  } else {
    (*key).x |= v << at;
    if (at > 0u) { (*key).y |= v >> (32u - at); }
  }
}

fn row_key(rank: u32, side: u32, depth: u32, pos: u32) -> vec2u {
  var key = vec2u(0u, 0u);
  put(&key, pos, 0u);
  put(&key, depth, u.bm);
  put(&key, side, 2u * u.bm);
  put(&key, rank, 2u * u.bm + 1u);
  return key;
}

@group(0) @binding(1) var<storage, read> pk_pparent: array<u32>;
@group(0) @binding(2) var<storage, read> pk_merges: array<vec4u>;
@group(0) @binding(3) var<storage, read> pk_par: array<u32>;
@group(0) @binding(4) var<storage, read> pk_jdl: array<vec4u>;
@group(0) @binding(5) var<storage, read_write> pk_keys: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> pk_vals: array<u32>;
@group(0) @binding(7) var<storage, read_write> pk_owner: array<u32>;

fn pk_size(node: u32) -> u32 {
  if (node >= u.n) { return pk_merges[node - u.n].z; }
  return 1u;
}

// One thread per point: the point's row key and the queued merge it leaves at (owner).
@compute @workgroup_size(WG)
fn point_keys(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let p = thread_index(wid, nwg, lid);
  if (p >= u.n) { return; }
  let pw = pk_pparent[p];
  let pm = pw & IDX;
  let side_p = pw >> 31u;
  if (pm == u.root || pk_merges[pm].z >= u.mcs) {
    pk_keys[p] = row_key(pk_jdl[pm].x, side_p, 0u, 0u);
    pk_owner[p] = pm;
  } else {
    let sp = pk_jdl[pm];
    let y = sp.w;
    let sy = pk_jdl[y];
    let yw = pk_par[y];
    let a = yw & IDX;
    var leaf = sp.z;
    if (side_p != 0u) { leaf += pk_size(pk_merges[pm].x); }
    pk_keys[p] = row_key(pk_jdl[a].x, yw >> 31u, sp.y + 1u - sy.y, leaf - sy.z);
    pk_owner[p] = a;
  }
  pk_vals[p] = p;
}

// One thread per possible split (two rows each, slots n + 2k and n + 2k + 1); beyond the count: sorted last.
@group(0) @binding(1) var<storage, read> sk_merge: array<u32>;
@group(0) @binding(2) var<storage, read> sk_jdl: array<vec4u>;
@group(0) @binding(3) var<storage, read> sk_count: array<u32>;
@group(0) @binding(4) var<storage, read_write> sk_keys: array<vec2u>;
@group(0) @binding(5) var<storage, read_write> sk_vals: array<u32>;

@compute @workgroup_size(WG)
fn split_keys(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let k = thread_index(wid, nwg, lid);
  if (k >= u.maxSplits) { return; }
  let slot = u.n + 2u * k;
  if (k < sk_count[0]) {
    let rank = sk_jdl[sk_merge[k]].x;
    sk_keys[slot] = row_key(rank, 0u, 0u, 0u);
    sk_keys[slot + 1u] = row_key(rank, 1u, 0u, 0u);
  } else {
    sk_keys[slot] = vec2u(NONE, NONE);
    sk_keys[slot + 1u] = vec2u(NONE, NONE);
  }
  sk_vals[slot] = slot;
  sk_vals[slot + 1u] = slot + 1u;
}

// ---- the rows in their sorted order, (parent cluster, child, weight bits of the merge, child size), written as
// columns in two dispatches of this entry (u.p0 = 0: parent into ro_a, child into ro_b; 1: weight bits, child size)
// so that the host reads the tree's own arrays straight into place and no row buffer is needed (8 storage bindings:
// the default per-stage limit).
@group(0) @binding(1) var<storage, read> ro_vals: array<u32>;
@group(0) @binding(2) var<storage, read> ro_owner: array<u32>;
@group(0) @binding(3) var<storage, read> ro_cluster: array<u32>;
@group(0) @binding(4) var<storage, read> ro_merge: array<u32>;
@group(0) @binding(5) var<storage, read> ro_merges: array<vec4u>;
@group(0) @binding(6) var<storage, read> ro_count: array<u32>;
@group(0) @binding(7) var<storage, read_write> ro_a: array<u32>;
@group(0) @binding(8) var<storage, read_write> ro_b: array<u32>;

@compute @workgroup_size(WG)
fn rows(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let r = thread_index(wid, nwg, lid);
  if (r >= u.n + 2u * ro_count[0]) { return; }
  let slot = ro_vals[r];
  var row: vec4u;
  if (slot < u.n) {
    let a = ro_owner[slot];
    row = vec4u(ro_cluster[a], slot, ro_merges[a].w, 1u);
  } else {
    let k = (slot - u.n) >> 1u;
    let side = (slot - u.n) & 1u;
    let a = ro_merge[k];
    let mg = ro_merges[a];
    var child = mg.x;
    if (side != 0u) { child = mg.y; }
    row = vec4u(ro_cluster[a], u.n + 1u + 2u * k + side, mg.w, ro_merges[child - u.n].z);
  }
  if (u.p0 == 0u) {
    ro_a[r] = row.x;
    ro_b[r] = row.y;
  } else {
    ro_a[r] = row.z;
    ro_b[r] = row.w;
  }
}

// ---- the dendrogram's buffers (src/cluster/dendrogram.ts) packed into merges: children (left, right) per merge,
// sizes, and the weight in the canonical keys' high word.
@group(0) @binding(1) var<storage, read> pm_children: array<u32>;
@group(0) @binding(2) var<storage, read> pm_size: array<u32>;
@group(0) @binding(3) var<storage, read> pm_keys: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> pm_merges: array<vec4u>;

@compute @workgroup_size(WG)
fn pack(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  pm_merges[i] = vec4u(pm_children[2u * i], pm_children[2u * i + 1u], pm_size[i], pm_keys[i].y);
}

// ---- each point's own row in point order: (parent cluster, weight bits), so the host labels points in order
// (sequential writes) instead of following the rows' order (scattered writes).
@group(0) @binding(1) var<storage, read> pr_owner: array<u32>;
@group(0) @binding(2) var<storage, read> pr_cluster: array<u32>;
@group(0) @binding(3) var<storage, read> pr_merges: array<vec4u>;
@group(0) @binding(4) var<storage, read_write> pr_out: array<vec2u>;

@compute @workgroup_size(WG)
fn point_rows(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let p = thread_index(wid, nwg, lid);
  if (p >= u.n) { return; }
  let a = pr_owner[p];
  pr_out[p] = vec2u(pr_cluster[a], pr_merges[a].w);
}
