// Stream compaction (stable): keeps values[i] where flags[i] != 0, in order, and writes how many were kept.
// Reduce-then-scan over the flags (Merrill & Garland 2016, NVR-2016-002, §3), with the scatter fused into
// the downsweep so that no index array is written:
//   count    block g counts its non-zero flags                       → counts[g]
//   (src/primitives/compact.ts scans counts in place with the Scanner: block offsets)
//   scatter  block g ranks its kept elements, adds offsets[g], writes out[rank] = values[i]; the last block
//            writes the total to count_out[0].
// Composed after common/grid, scan_wg_{subgroup,shared} and scan_tile.

struct Params {
  /** Number of elements. */
  count: u32,
  /** Bit 1: add offsets[g] (else 0, for a single block). */
  flags: u32,
  /** Number of blocks (the grid may hold more workgroups than that). */
  num_groups: u32,
  pad: u32,
}

@group(0) @binding(0) var<uniform> u: Params;

// count: binding 1 the flags, binding 2 the per-block counts.
@group(0) @binding(1) var<storage, read> count_flags: array<u32>;
@group(0) @binding(2) var<storage, read_write> count_counts: array<u32>;

// scatter: 1 values, 2 flags, 3 block offsets, 4 output, 5 kept count.
@group(0) @binding(1) var<storage, read> values: array<u32>;
@group(0) @binding(2) var<storage, read> flags: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read_write> count_out: array<u32>;

@compute @workgroup_size(WG)
fn count(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= u.num_groups) {
    return;
  }
  let base = g * TILE;
  let full = base + TILE <= u.count;
  var kept = 0u;
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    if ((full || k < u.count) && count_flags[k] != 0u) {
      kept += 1u;
    }
  }
  let s = wg_exclusive_scan(lid, kept);
  if (lid == 0u) {
    count_counts[g] = s.total;
  }
}

@compute @workgroup_size(WG)
fn scatter(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= u.num_groups) {
    return;
  }
  let base = g * TILE;
  let full = base + TILE <= u.count;
  // Bit i: element base + i·WG + lid is kept (ITEMS ≤ 32).
  var keep = 0u;
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    var f = 0u;
    if ((full || k < u.count) && flags[k] != 0u) {
      f = 1u;
    }
    keep |= f << i;
    tile[tile_slot(i * WG + lid)] = f;
  }
  workgroupBarrier();
  let offset = select(0u, offsets[g], (u.flags & 2u) != 0u);
  let total = scan_tile(lid, offset, false);
  workgroupBarrier();
  for (var i = 0u; i < ITEMS; i++) {
    if ((keep & (1u << i)) != 0u) {
      out[tile[tile_slot(i * WG + lid)]] = values[base + i * WG + lid];
    }
  }
  if (g == u.num_groups - 1u && lid == 0u) {
    count_out[0] = offset + total;
  }
}
