// Prefix sums of u32 (wrapping add) by reduce-then-scan (Merrill & Garland 2016, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVR-2016-002, §3: the two-pass "reduce-then-scan" strategy, which needs no
// forward progress between workgroups; the single-pass look-back with a fallback is scan_lookback.wgsl):
//   upsweep    block g sums its TILE elements            → sums[g]
//   (the block sums are scanned the same way, recursively, by src/primitives/scan.ts)
//   downsweep  block g scans its elements, adds offsets[g] → dst
// Composed after common/grid, scan_wg_{subgroup,shared} and scan_tile.

struct Params {
  /** Number of elements. */
  count: u32,
  /** Bit 0: inclusive (else exclusive); bit 1: add offsets[g] (else 0). */
  flags: u32,
  /** Number of blocks (the grid may hold more workgroups than that). */
  num_groups: u32,
  pad: u32,
}

@group(0) @binding(0) var<uniform> u: Params;

// upsweep: binding 1 the input, binding 2 the block sums.
@group(0) @binding(1) var<storage, read> up_src: array<u32>;
@group(0) @binding(2) var<storage, read_write> up_sums: array<u32>;

// downsweep: binding 1 the input, binding 2 the block offsets, binding 3 the output.
@group(0) @binding(1) var<storage, read> down_src: array<u32>;
@group(0) @binding(2) var<storage, read> down_offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> down_dst: array<u32>;

// downsweep_in_place: binding 1 the data (read and overwritten), binding 2 the block offsets. WebGPU forbids
// binding one buffer as both read-only and writable storage in a dispatch, hence this entry point.
@group(0) @binding(1) var<storage, read_write> inplace_data: array<u32>;

@compute @workgroup_size(WG)
fn upsweep(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= u.num_groups) {
    return;
  }
  let base = g * TILE;
  var sum = 0u;
  if (base + TILE <= u.count) {
    for (var i = 0u; i < ITEMS; i++) {
      sum += up_src[base + i * WG + lid];
    }
  } else {
    for (var i = 0u; i < ITEMS; i++) {
      let k = base + i * WG + lid;
      if (k < u.count) {
        sum += up_src[k];
      }
    }
  }
  let s = wg_exclusive_scan(lid, sum);
  if (lid == 0u) {
    up_sums[g] = s.total;
  }
}

@compute @workgroup_size(WG)
fn downsweep(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
             @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= u.num_groups) {
    return;
  }
  let base = g * TILE;
  let full = base + TILE <= u.count;
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    var x = 0u;
    if (full || k < u.count) {
      x = down_src[k];
    }
    tile[tile_slot(i * WG + lid)] = x;
  }
  workgroupBarrier();
  let offset = select(0u, down_offsets[g], (u.flags & 2u) != 0u);
  scan_tile(lid, offset, (u.flags & 1u) != 0u);
  workgroupBarrier();
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    if (full || k < u.count) {
      down_dst[k] = tile[tile_slot(i * WG + lid)];
    }
  }
}

@compute @workgroup_size(WG)
fn downsweep_in_place(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                      @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= u.num_groups) {
    return;
  }
  let base = g * TILE;
  let full = base + TILE <= u.count;
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    var x = 0u;
    if (full || k < u.count) {
      x = inplace_data[k];
    }
    tile[tile_slot(i * WG + lid)] = x;
  }
  workgroupBarrier();
  let offset = select(0u, down_offsets[g], (u.flags & 2u) != 0u);
  scan_tile(lid, offset, (u.flags & 1u) != 0u);
  workgroupBarrier();
  for (var i = 0u; i < ITEMS; i++) {
    let k = base + i * WG + lid;
    if (full || k < u.count) {
      inplace_data[k] = tile[tile_slot(i * WG + lid)];
    }
  }
}
