// Dendrogram step 1–2 (src/cluster/dendrogram.ts; CPU twin dendrogram.cpu.ts, whose header explains the algorithm):
// Borůvka on the MST itself, whose edges are ranked by their canonical position e (no ties), recording each edge's
// sided parent. One round = min_edge → sided → hook → flatten, every dispatch over a host-sized grid;
// ⌈log2 n⌉ + 1 rounds are encoded (the last finds no outgoing edge and closes the root chain). Then `resolve`.
// Included modules: common/grid, unionfind/unionfind (lock-free union-find; uf_parent doubles as the flattened
// component labels between rounds: after `flatten`, uf_parent[x] is the smallest point of x's component).
//
// Sided-parent codes (sp, then `codes` in the `added` array after resolve):
// | 2p + side: the chain below edge p's child on side 0 (p's source side) or 1 | 2m: the root chain |
// | FOLLOW | a: decided by edge a's code (resolve) | NONE: not yet known |

struct RoundParams {
  /** Points. */
  n: u32,
  /** Edges (n − 1). */
  m: u32,
  /** Borůvka round (0 …). */
  round: u32,
  p0: u32,
}

@group(0) @binding(0) var<uniform> u: RoundParams;
/** The canonical edges: (source, weight bits) (src/emst/canonical.ts). */
@group(0) @binding(1) var<storage, read> keys: array<vec2u>;
/** The canonical edges' targets. */
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> uf_parent: array<atomic<u32>>;
/** Per component label: its smallest outgoing edge this round (NONE: none, or not a label). */
@group(0) @binding(4) var<storage, read_write> best: array<atomic<u32>>;
/** Per edge: the round that added it (NONE: not yet); after `resolve`, its sided-parent code. */
@group(0) @binding(5) var<storage, read_write> added: array<u32>;
/** Per edge: its sided-parent code as recorded (FOLLOW allowed). */
@group(0) @binding(6) var<storage, read_write> sp: array<u32>;
/** Per point: its parent edge, the smallest edge incident to it (round 0's best). */
@group(0) @binding(7) var<storage, read_write> point_parent: array<u32>;

const NONE: u32 = 0xffffffffu;
const FOLLOW: u32 = 0x80000000u;

fn label_of(x: u32) -> u32 {
  return atomicLoad(&uf_parent[x]);
}

// Every point its own component; no edge added; no best edge (hook clears what it reads, for the next round).
@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < u.n) {
    atomicStore(&uf_parent[i], i);
    atomicStore(&best[i], NONE);
  }
  if (i < u.m) {
    added[i] = NONE;
    sp[i] = NONE;
  }
}

// Each edge not yet added joins two components (the MST is a tree): the smallest rank wins at both labels.
@compute @workgroup_size(WG)
fn min_edge(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
            @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m || added[e] != NONE) { return; }
  atomicMin(&best[label_of(keys[e].x)], e);
  atomicMin(&best[label_of(targets[e])], e);
}

// Edges added last round now lie inside one component K; α = K's smallest outgoing edge.
// Important! e < α: e hangs below α's child on K's side; e > α: e follows α (resolve); no α: the root chain.
@compute @workgroup_size(WG)
fn sided(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m || u.round == 0u || added[e] != u.round - 1u) { return; }
  let k = label_of(keys[e].x);
  let a = atomicLoad(&best[k]);
  if (a == NONE) {
    sp[e] = 2u * u.m;
  } else if (e < a) {
    sp[e] = 2u * a + select(1u, 0u, label_of(keys[a].x) == k);
  } else {
    sp[e] = FOLLOW | a;
  }
}

// Only component labels hold a best edge: each adds it (both ends may: the same values) and merges across it,
// and clears its best for the next round.
@compute @workgroup_size(WG)
fn hook(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let x = thread_index(wid, nwg, lid);
  if (x >= u.n) { return; }
  let a = atomicLoad(&best[x]);
  if (a == NONE) { return; }
  atomicStore(&best[x], NONE);
  if (u.round == 0u) { point_parent[x] = a; }
  added[a] = u.round;
  _ = uf_union(keys[a].x, targets[a]);
}

@compute @workgroup_size(WG)
fn flatten(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let x = thread_index(wid, nwg, lid);
  if (x < u.n) { atomicStore(&uf_parent[x], uf_find(x)); }
}

// FOLLOW a: from a's code (p, side), that is e's if e < p, else go on from p's; at most one step per round.
@compute @workgroup_size(WG)
fn resolve(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  var key = sp[e];
  if (key >= FOLLOW) {
    var next = key & ~FOLLOW;
    loop {
      key = sp[next];
      if (key >= FOLLOW) {
        next = key & ~FOLLOW;
        continue;
      }
      if (key == 2u * u.m) { break; }
      let p = key >> 1u;
      if (e < p) { break; }
      next = p;
    }
  }
  added[e] = key;
}
