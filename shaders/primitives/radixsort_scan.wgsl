// Radix sort pass, step 2: one workgroup per digit d scans row d of the block histogram table in place
// (exclusive, over the blocks) and writes the row's total to totals[d]. The scatter step adds the exclusive
// scan of the totals, so table entry (d, block) + base(d) is where the block's first key of digit d goes.
// No workgroup waits on another (no forward-progress assumption).
@group(0) @binding(0) var<uniform> u: SortParams;
@group(0) @binding(1) var<storage, read_write> table: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;

// Table entries per thread per round.
const RS_SPT: u32 = 8u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) t: u32) {
  let d = group_index(wid, nwg);
  if (d >= RS_DIGITS) { return; }
  if (rs_skip(t)) { return; }
  let row = d * u.numBlocks;
  var carry = 0u;
  for (var c = 0u; c < u.numBlocks; c += WG * RS_SPT) {
    // Important! x is set explicitly on every path: the zero-initialisation of a `var` declared inside a loop
    // was not repeated per iteration on lavapipe (stale values from the previous round leaked into `sum`).
    var x: array<u32, RS_SPT>;
    var sum = 0u;
    let first = c + t * RS_SPT;
    for (var i = 0u; i < RS_SPT; i++) {
      x[i] = 0u;
      if (first + i < u.numBlocks) { x[i] = table[row + first + i]; }
      sum += x[i];
    }
    let sc = rs_wg_scan(t, vec2u(sum, 0u));
    var run = carry + sc.excl.x;
    for (var i = 0u; i < RS_SPT; i++) {
      if (first + i < u.numBlocks) { table[row + first + i] = run; }
      run += x[i];
    }
    carry += sc.total.x;
    workgroupBarrier();
  }
  if (t == 0u) { totals[d] = carry; }
}
