// Indirect arguments of the traversal: ⌈activeCount / WG_NEAREST⌉ workgroups, spread over a 2D grid of at most
// maxDim per dimension (the recorder's gridFor, on the GPU).
struct ArgsParams { maxDim: u32, wgNearest: u32, p0: u32, p1: u32 }
@group(0) @binding(0) var<uniform> a: ArgsParams;
@group(0) @binding(1) var<storage, read> activeCount: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(1)
fn main() {
  let groups = (activeCount[0] + a.wgNearest - 1u) / a.wgNearest;
  var x = groups;
  var y = 1u;
  if (groups > a.maxDim) {
    y = (groups + a.maxDim - 1u) / a.maxDim;
    x = (groups + y - 1u) / y;
  }
  args[0] = x;
  args[1] = y;
  args[2] = 1u;
}
