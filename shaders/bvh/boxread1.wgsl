// Reading the BVH's box array from one binding `boxes0: array<u32>` (the includer declares it): the variant of
// bvh/boxread.wgsl for kernels that cannot spare bindings for the second and third parts (src/bvh/layout.ts).
fn box_word(i: u32) -> u32 {
  return boxes0[i];
}
