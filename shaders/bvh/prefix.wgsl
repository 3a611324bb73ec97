// The BVH's Morton order by a sort of the codes' top 32 bits (issue 18; host side and the argument why the order
// is the full sort's: src/bvh/prefixsort.ts; CPU twin: src/bvh/prefixsort.cpu.ts). Composed after bvh/morton.wgsl
// (bindings 0–4, morton_code), whose `codes` and `values` are the BVH's codes and order here.
//   prefix  the top 32 bits of every point's code (bits [CODE_BITS − 32, CODE_BITS)) and the identity; zeroes the
//           long-run flag.
//   runs    after the stable 32-bit sort of (prefix, index): every point's full code again, from its point, and each
//           run of equal prefixes of at most RUN_MAX points put in (code, index) order by its first thread; a
//           longer run is written as it stands (index order) and raises flag[0], which switches on the full sort
//           recorded behind this kernel (prefixsort.ts). It also writes the points in that order into `sorted` (the
//           build's gather: it reads each point anyway).
//   regather after the guarded full sort, where flag[0] is set: sorted[i] = points[order[i]] again; a fixed grid
//           whose threads stride over the points, so that an idle one costs a few workgroups.
@group(0) @binding(5) var<storage, read_write> prefixes: array<u32>;
@group(0) @binding(6) var<storage, read> sortedOrder: array<u32>;
@group(0) @binding(7) var<storage, read_write> flag: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> sorted: array<u32>;

// Point j's code into codes[k], j into values[k], its coordinates into sorted[k].
fn put(k: u32, j: u32) {
  codes[k] = morton_code(j);
  values[k] = j;
  for (var a = 0u; a < D; a++) { sorted[k * D + a] = points[j * D + a]; }
}

// Bits [CODE_BITS − 32, CODE_BITS) of a code (CODE_BITS in 33 … 64: prefixsort.ts).
fn code_prefix(c: vec2u) -> u32 {
  let s = CODE_BITS - 32u;
  if (s == 32u) { return c.y; }
  return (c.x >> s) | (c.y << (32u - s));
}

// Whether code a sorts after code b (64-bit, unsigned).
fn code_after(a: vec2u, b: vec2u) -> bool {
  return a.y > b.y || (a.y == b.y && a.x > b.x);
}

@compute @workgroup_size(WG)
fn prefix(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i == 0u) { atomicStore(&flag[0], 0u); }
  if (i >= mp.n) { return; }
  prefixes[i] = code_prefix(morton_code(i));
  values[i] = i;
}

@compute @workgroup_size(WG)
fn runs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  let n = mp.n;
  if (i >= n) { return; }
  let p = prefixes[i];
  // The run [s, e) around i, looked at no further than RUN_MAX points either way.
  var s = i;
  while (s > 0u && i - s < RUN_MAX && prefixes[s - 1u] == p) { s--; }
  var e = i + 1u;
  while (e < n && e - s <= RUN_MAX && prefixes[e] == p) { e++; }
  let long = e - s > RUN_MAX || (s > 0u && prefixes[s - 1u] == p);
  if (long) {
    // Index order, as the stable sort left it; the full sort behind this kernel orders it.
    put(i, sortedOrder[i]);
    // Once per long run: by its first point.
    if (s == i) { atomicStore(&flag[0], 1u); }
    return;
  }
  if (s != i) { return; }
  // The first point of a short run: its codes, then a stable insertion sort by code (indices ascend already).
  if (e - s == 1u) {
    put(i, sortedOrder[i]);
    return;
  }
  for (var k = s; k < e; k++) {
    codes[k] = morton_code(sortedOrder[k]);
    values[k] = sortedOrder[k];
  }
  for (var k = s + 1u; k < e; k++) {
    let c = codes[k];
    let v = values[k];
    var m = k;
    while (m > s && code_after(codes[m - 1u], c)) {
      codes[m] = codes[m - 1u];
      values[m] = values[m - 1u];
      m--;
    }
    codes[m] = c;
    values[m] = v;
  }
  for (var k = s; k < e; k++) {
    let j = values[k];
    for (var a = 0u; a < D; a++) { sorted[k * D + a] = points[j * D + a]; }
  }
}

@compute @workgroup_size(WG)
fn regather(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
            @builtin(local_invocation_index) lid: u32) {
  if (atomicLoad(&flag[0]) == 0u) { return; }
  let stride = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < mp.n; i += stride) {
    let j = values[i];
    for (var a = 0u; a < D; a++) { sorted[i * D + a] = points[j * D + a]; }
  }
}
