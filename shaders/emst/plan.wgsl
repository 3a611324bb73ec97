// Indirect dispatch arguments for the next Borůvka round: the host-computed grids while edges are missing, empty
// grids once the tree has n − 1 edges, so that rounds encoded ahead of time cost almost nothing after the end.
struct Plan { n: u32, slots: u32, pad0: u32, pad1: u32, grids: array<vec4u, 4> }
@group(0) @binding(0) var<uniform> p: Plan;
@group(0) @binding(1) var<storage, read> edgeCount: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(1)
fn main() {
  let done = edgeCount[0] + 1u >= p.n;
  for (var s = 0u; s < p.slots; s++) {
    let g = p.grids[s];
    args[3u * s] = select(g.x, 0u, done);
    args[3u * s + 1u] = g.y;
    args[3u * s + 2u] = 1u;
  }
}
