// Reading the BVH's box array through its BOX_PARTS bindings (src/bvh/layout.ts, "Box parts").
// Contract: the including kernel declares `boxes0`, `boxes1`, `boxes2: array<u32>` (read) and the composer
// prepends BOX_PART_WORDS (u32 words per part, whole records; bvh/boxget.wgsl reads them in either box format). Word i of the logical array lives in part
// i / BOX_PART_WORDS; below BOX_PART_WORDS (every BVH of up to ~8.9·10^7 3D points on the H100) the branch is
// uniform and costs nothing.
fn box_word(i: u32) -> u32 {
  if (i < BOX_PART_WORDS) { return boxes0[i]; }
  if (i < 2u * BOX_PART_WORDS) { return boxes1[i - BOX_PART_WORDS]; }
  return boxes2[i - 2u * BOX_PART_WORDS];
}
