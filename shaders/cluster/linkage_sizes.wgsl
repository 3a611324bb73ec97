// Dendrogram step 5 (src/cluster/dendrogram.ts; CPU twin dendrogram.cpu.ts eulerSizesCpu): merge sizes by ranking
// an Euler tour of the dendrogram with pointer jumping (Wyllie 1979), double-buffered: no thread reads what
// another writes in the same dispatch.
// Tokens: enter(i) = i, exit(i) = m + i (merges), point x = 2m + x, the end T = 2m + n. Token = | succ | sum |,
// sum = 1 for points at the start; after ⌈log2(T + 1)⌉ jumps, sum = the points from the token to the end, and
// size(i) = sum(enter(i)) − sum(exit(i)).

struct SizeParams {
  n: u32,
  m: u32,
  p0: u32,
  p1: u32,
}

@group(0) @binding(0) var<uniform> u: SizeParams;
@group(0) @binding(1) var<storage, read> children: array<u32>;
@group(0) @binding(2) var<storage, read_write> tok_in: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> tok_out: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> size: array<u32>;

fn first_token(c: u32) -> u32 {
  return select(c - u.n, 2u * u.m + c, c < u.n);
}

fn last_token(c: u32) -> u32 {
  return select(u.m + c - u.n, 2u * u.m + c, c < u.n);
}

fn token(t: u32, succ: u32) -> vec2u {
  return vec2u(succ, select(0u, 1u, t >= 2u * u.m));
}

// Every token's successor is written once: enter(i) and its children's last tokens by merge i; the root's exit
// and the end by thread 0.
@compute @workgroup_size(WG)
fn tour(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.m) { return; }
  let end = 2u * u.m + u.n;
  let l = children[2u * i];
  let r = children[2u * i + 1u];
  tok_out[i] = token(i, first_token(l));
  tok_out[last_token(l)] = token(last_token(l), first_token(r));
  tok_out[last_token(r)] = token(last_token(r), u.m + i);
  if (i == 0u) {
    tok_out[2u * u.m - 1u] = vec2u(end, 0u);
    tok_out[end] = vec2u(end, 0u);
  }
}

@compute @workgroup_size(WG)
fn jump(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  if (t > 2u * u.m + u.n) { return; }
  let a = tok_in[t];
  let b = tok_in[a.x];
  tok_out[t] = vec2u(b.x, a.y + b.y);
}

@compute @workgroup_size(WG)
fn sizes(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < u.m) { size[i] = tok_in[i].y - tok_in[u.m + i].y; }
}
