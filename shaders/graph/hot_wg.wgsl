// Included instead of graph/hot_sg by the appending kernels without subgroups.
// HOT_SETS needs subgroups (reserve_sg.wgsl); here every entry records both endpoints itself.
fn hot_record(has: bool, p: u32, q: u32, key: u32, id: u32) -> vec2<bool> {
  return vec2<bool>(true, true);
}
