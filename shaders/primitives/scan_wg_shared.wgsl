// Workgroup-wide exclusive scan of one u32 per invocation (wrapping add) through workgroup memory only
// (Hillis & Steele 1986, log2(WG) steps): the fallback when the `subgroups` feature is absent. Same interface
// as scan_wg_subgroup.wgsl. WG must be a power of two.

struct WgScan {
  /** Sum of x over the invocations before this one. */
  exclusive: u32,
  /** Sum of x over the workgroup. */
  total: u32,
}

var<workgroup> wg_scan_buf: array<u32, WG>;

fn wg_exclusive_scan(lid: u32, x: u32) -> WgScan {
  wg_scan_buf[lid] = x;
  workgroupBarrier();
  for (var off = 1u; off < WG; off <<= 1u) {
    let y = select(0u, wg_scan_buf[max(lid, off) - off], lid >= off);
    workgroupBarrier();
    wg_scan_buf[lid] += y;
    workgroupBarrier();
  }
  let incl = wg_scan_buf[lid];
  let total = wg_scan_buf[WG - 1u];
  workgroupBarrier();
  return WgScan(incl - x, total);
}
