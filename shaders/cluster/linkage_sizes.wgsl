// Dendrogram step 5 (src/cluster/dendrogram.ts; CPU twin dendrogram.cpu.ts eulerSizesCpu): merge sizes by ranking
// an Euler tour of the dendrogram. Tokens: enter(i) = i, exit(i) = m + i (merges), point x = 2m + x, the end
// T = 2m + n; a token weighs 1 if it is a point's, else 0, so size(i) = S(enter(i)) − S(exit(i)) with S(t) the
// weight from t to the end of the tour.
// List ranking by a sparse ruling set (Reid-Miller & Blelloch's "List ranking and list scan on the Cray C-90", after
// Wyllie 1979): R = ⌈T / RULE⌉ tokens are rulers — those a fixed permutation of [0, T) (cycle-walking a bijective
// mix of k = bits(T) bits) sends below R, so their compact index is that image and the count is exact — plus the
// tour's head, enter(root), at index R when not one already. Each ruler walks its sublist up to the next ruler
// (`walk`: RULE tokens on average), pointer jumping ranks the R + 2 rulers (`rjump`, ⌈log2(R + 2)⌉ passes,
// double-buffered), and every token adds its offset (`sizes`). O(T) work instead of Wyllie's O(T log T).
// Arrays: succ[t] (the tour), own[t] = | ruler index | weight from the ruler up to t (exclusive) |,
// ruler r = | next ruler's index (END = R + 1 after the last) | weight of its sublist, then from it to the end |.

struct SizeParams {
  n: u32,
  m: u32,
  /** R: the permutation's rulers. */
  rulers: u32,
  /** k: bits of T. */
  bits: u32,
}

@group(0) @binding(0) var<uniform> u: SizeParams;
@group(0) @binding(1) var<storage, read> children: array<u32>;
@group(0) @binding(2) var<storage, read_write> succ: array<u32>;
@group(0) @binding(3) var<storage, read_write> own: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> r_in: array<vec2u>;
@group(0) @binding(5) var<storage, read_write> r_out: array<vec2u>;
@group(0) @binding(6) var<storage, read_write> size: array<u32>;

fn first_token(c: u32) -> u32 {
  return select(c - u.n, 2u * u.m + c, c < u.n);
}

fn last_token(c: u32) -> u32 {
  return select(u.m + c - u.n, 2u * u.m + c, c < u.n);
}

fn weight(t: u32) -> u32 {
  return select(0u, 1u, t >= 2u * u.m);
}

// A bijection of [0, 2^k): odd multipliers and xor-shifts, each invertible on k bits.
fn mix(x0: u32) -> u32 {
  let mask = select((1u << u.bits) - 1u, 0xffffffffu, u.bits >= 32u);
  let sh = (u.bits + 1u) / 2u;
  var x = (x0 * 0x9e3779b1u) & mask;
  x = x ^ (x >> sh);
  x = (x * 0x85ebca77u) & mask;
  x = x ^ (x >> sh);
  return x;
}

// mix's inverse: the xor-shifts are involutions (2 · sh ≥ k), the multipliers' inverses are mod 2^32 (so mod 2^k).
fn unmix(x0: u32) -> u32 {
  let mask = select((1u << u.bits) - 1u, 0xffffffffu, u.bits >= 32u);
  let sh = (u.bits + 1u) / 2u;
  var x = x0 ^ (x0 >> sh);
  x = (x * 0xb6c92f47u) & mask;
  x = x ^ (x >> sh);
  x = (x * 0x0e8b2f51u) & mask;
  return x;
}

// perm's inverse: the token a ruler index belongs to.
fn unperm(p: u32) -> u32 {
  let end = 2u * u.m + u.n;
  var y = unmix(p);
  loop {
    if (y < end) { break; }
    y = unmix(y);
  }
  return y;
}

// A bijection of [0, T) (cycle walking: apply mix until the value falls below T).
fn perm(t: u32) -> u32 {
  let end = 2u * u.m + u.n;
  var y = mix(t);
  loop {
    if (y < end) { break; }
    y = mix(y);
  }
  return y;
}

// The ruler index of token t < T, or NONE.
fn ruler_of(t: u32) -> u32 {
  let p = perm(t);
  if (p < u.rulers) { return p; }
  if (t == u.m - 1u) { return u.rulers; } // the head, enter(root)
  return 0xffffffffu;
}

// Every token's successor is written once: enter(i) and its children's last tokens by merge i; the root's exit
// by thread 0.
@compute @workgroup_size(WG)
fn tour(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  let l = children[2u * i];
  let r = children[2u * i + 1u];
  succ[i] = first_token(l);
  succ[last_token(l)] = first_token(r);
  succ[last_token(r)] = u.m + i;
  if (i == 0u) { succ[2u * u.m - 1u] = 2u * u.m + u.n; }
}

// Each ruler walks to the next ruler (or the end), giving every token it passes its index and offset. One thread
// per ruler index (tokens found through unperm, so a warp's threads all walk): R for the head when it is no ruler
// of the permutation, else that slot and END point at END.
@compute @workgroup_size(WG)
fn walk(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let r = thread_index(wid, nwg, lid);
  let end = 2u * u.m + u.n;
  if (r > u.rulers) { return; }
  var t = u.m - 1u;
  if (r < u.rulers) {
    t = unperm(r);
  } else {
    r_in[u.rulers + 1u] = vec2u(u.rulers + 1u, 0u);
    if (ruler_of(t) != u.rulers) {
      r_in[u.rulers] = vec2u(u.rulers + 1u, 0u);
      return;
    }
  }
  own[t] = vec2u(r, 0u);
  var acc = weight(t);
  var s = succ[t];
  loop {
    if (s == end) {
      r_in[r] = vec2u(u.rulers + 1u, acc);
      return;
    }
    let q = ruler_of(s);
    if (q != 0xffffffffu) {
      r_in[r] = vec2u(q, acc);
      return;
    }
    own[s] = vec2u(r, acc);
    acc = acc + weight(s);
    s = succ[s];
  }
}

// Pointer jumping over the R + 2 rulers (the head's slot R and END included; an unused head slot is harmless).
@compute @workgroup_size(WG)
fn rjump(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i > u.rulers + 1u) { return; }
  let a = r_in[i];
  let b = r_in[a.x];
  r_out[i] = vec2u(b.x, a.y + b.y);
}

// S(t) = S(its ruler) − its offset; size(i) = S(enter(i)) − S(exit(i)). r_in holds the ranked rulers.
@compute @workgroup_size(WG)
fn sizes(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  let a = own[i];
  let b = own[u.m + i];
  size[i] = (r_in[a.x].y - a.y) - (r_in[b.x].y - b.y);
}
