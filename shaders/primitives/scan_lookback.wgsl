// Single-pass prefix sums of u32 (wrapping add) by decoupled look-back (Merrill & Garland 2016, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVR-2016-002, §4) with a fallback that needs no forward
// progress from any other workgroup (Smith, Levien & Owens, "Decoupled Fallback: A Portable Single-Pass GPU
// Scan", SPAA 2025, doi:10.1145/3694906.3743326; their split 16-bit tile state too): a workgroup that has
// waited MAX_SPIN rounds for a predecessor computes that predecessor's sum itself from the input. Our
// look-back examines a window of WINDOW predecessors per round with the whole workgroup (no subgroup ops).
// The input is read once (plus the fallbacks' re-reads) and the output written once.
//
// Each workgroup takes the next tile index from a counter (so tiles start in index order), scans its tile,
// publishes the tile's aggregate, looks back over its predecessors for its exclusive prefix, publishes its
// inclusive prefix, and writes the tile plus the prefix.
//
// Status words (cleared to 0 before every dispatch), after the tile counter at index 0, four per tile:
//   | agg lo | agg hi | inc lo | inc hi |     each word: | bit 31: ready | bits 30…16: 0 | bits 15…0: half |
// A 32-bit value travels as two 16-bit halves, each with its own ready bit, because WGSL has no 64-bit atomic
// load/store and relaxed atomics give no ordering between two words: a half is only ever read together with
// its own ready bit. A value is used once both halves are ready; aggregate and inclusive slots are written
// once each (the fallback may rewrite an aggregate with the same value), so ready halves always match.
//
// In-place scans are not supported here (a fallback re-reads a predecessor's input, which may already be
// overwritten); src/primitives/scan.ts uses reduce-then-scan for them.
// Composed after common/grid, scan_wg_{subgroup,shared} and scan_tile.

struct Params {
  /** Number of elements. */
  count: u32,
  /** Bit 0: inclusive (else exclusive). */
  flags: u32,
  /** Number of tiles (the grid may hold more workgroups than that). */
  num_groups: u32,
  pad: u32,
}

/** Look-back rounds without progress before a workgroup reduces the predecessor's tile itself. */
override MAX_SPIN: u32 = 16u;
/**
 * Tests only, to reach every branch on any device: 1 — tiles of odd index never look ready to the look-back,
 * so that fallbacks must reduce them; 2 — inclusive prefixes of tiles other than 0 stay unseen, so that the
 * look-back adds aggregates all the way back (whole windows of them).
 */
override TEST_MODE: u32 = 0u;

const READY: u32 = 0x80000000u;
/** Predecessors examined per look-back round (one per invocation). */
override WINDOW: u32 = min(WG, 32u);

@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;

var<workgroup> wg_tile_index: u32;
var<workgroup> wg_stop: atomic<u32>;
var<workgroup> wg_stop_plain: u32;

fn aggregate_slot(t: u32) -> u32 {
  return 1u + 4u * t;
}

fn inclusive_slot(t: u32) -> u32 {
  return 3u + 4u * t;
}

fn publish(slot: u32, v: u32) {
  atomicStore(&status[slot], READY | (v & 0xFFFFu));
  atomicStore(&status[slot + 1u], READY | (v >> 16u));
}

/** The value at `slot` (x) and whether both of its halves are ready (y = 1). */
fn read_value(slot: u32) -> vec2u {
  let lo = atomicLoad(&status[slot]);
  let hi = atomicLoad(&status[slot + 1u]);
  return vec2u((lo & 0xFFFFu) | (hi << 16u), select(0u, 1u, (lo & hi & READY) != 0u));
}

/** The sum of tile t's elements (a full tile: t is not the last one), by the whole workgroup. */
fn reduce_tile(lid: u32, t: u32) -> u32 {
  var sum = 0u;
  for (var i = 0u; i < ITEMS; i++) {
    sum += src[t * TILE + i * WG + lid];
  }
  return wg_exclusive_scan(lid, sum).total;
}

/**
 * The exclusive prefix of tile t > 0 (the same value in every invocation). Each round, invocation w looks at
 * tile j − w; the first of them that is not merely an aggregate (an inclusive prefix, or not ready) stops the
 * round: aggregates before it are added, an inclusive prefix ends the look-back, a tile not ready is waited
 * for (another round) or, after MAX_SPIN rounds without progress, reduced from the input here.
 */
fn look_back(lid: u32, t: u32) -> u32 {
  var prefix = 0u;
  var j = t - 1u;
  var spins = 0u;
  loop {
    // kind: 0 not ready, 1 aggregate, 2 inclusive prefix.
    var kind = 1u;
    var value = 0u;
    if (lid < WINDOW) {
      if (lid <= j) {
        let inc = read_value(inclusive_slot(j - lid));
        let agg = read_value(aggregate_slot(j - lid));
        let hidden = TEST_MODE == 1u && ((j - lid) & 1u) != 0u;
        if (inc.y != 0u && !hidden && !(TEST_MODE == 2u && j - lid != 0u)) {
          kind = 2u;
          value = inc.x;
        } else if (agg.y != 0u && !hidden) {
          value = agg.x;
        } else {
          kind = 0u;
        }
      } else {
        kind = 2u; // before tile 0: never the first stop, as tile 0 publishes no aggregate.
      }
    }
    // The first stop, as 2·lid + (not ready); 2·WG when every tile of the window is an aggregate.
    if (lid == 0u) {
      atomicStore(&wg_stop, 2u * WG);
    }
    workgroupBarrier();
    if (kind != 1u) {
      atomicMin(&wg_stop, 2u * lid + select(0u, 1u, kind == 0u));
    }
    workgroupBarrier();
    if (lid == 0u) {
      wg_stop_plain = atomicLoad(&wg_stop);
    }
    let stop = workgroupUniformLoad(&wg_stop_plain);
    let s = stop >> 1u;
    let waiting = (stop & 1u) != 0u;
    prefix += wg_exclusive_scan(lid, select(0u, value, lid < s || (lid == s && !waiting))).total;
    if (s == WG) {
      j -= WINDOW; // j ≥ WINDOW here: tile 0 is never an aggregate.
      spins = 0u;
      continue;
    }
    if (!waiting) {
      break;
    }
    j -= s;
    spins = select(spins + 1u, 1u, s > 0u);
    if (spins > MAX_SPIN) {
      let agg = reduce_tile(lid, j);
      prefix += agg;
      if (lid == 0u) {
        // Tile 0's sum is its inclusive prefix: publish it as one, so that tile 0 is never an aggregate.
        publish(select(aggregate_slot(j), inclusive_slot(0u), j == 0u), agg);
      }
      if (j == 0u) {
        break;
      }
      j -= 1u;
      spins = 0u;
    }
  }
  return prefix;
}

@compute @workgroup_size(WG)
fn single_pass(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  if (group_index(wid, nwg) >= u.num_groups) {
    return;
  }
  if (lid == 0u) {
    wg_tile_index = atomicAdd(&status[0], 1u);
  }
  let t = workgroupUniformLoad(&wg_tile_index);
  let base = t * TILE;
  let full = base + TILE <= u.count;
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    var x = 0u;
    if (full || k < u.count) {
      x = src[k];
    }
    tile[tile_slot(i * WG + lid)] = x;
  }
  workgroupBarrier();
  let aggregate = scan_tile(lid, 0u, (u.flags & 1u) != 0u);
  if (lid == 0u) {
    publish(select(aggregate_slot(t), inclusive_slot(0u), t == 0u), aggregate);
  }
  var prefix = 0u;
  if (t > 0u) {
    prefix = look_back(lid, t);
    if (lid == 0u) {
      publish(inclusive_slot(t), prefix + aggregate);
    }
  }
  workgroupBarrier();
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    if (full || k < u.count) {
      dst[k] = tile[tile_slot(i * WG + lid)] + prefix;
    }
  }
}
