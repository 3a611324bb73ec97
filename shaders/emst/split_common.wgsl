// The uniform block of Borůvka's split round kernels (issue 19; src/emst/roundsplit.ts): emst/common.wgsl's Params
// fields in its order, then the window the dispatch covers: items [first, first + count) — points, or records —
// whose windowed arrays are bound from `first` on (the others whole, or in parts through generated accessors).
struct WinParams {
  n: u32,
  mr: u32,
  ia2: f32,
  skip: u32,
  cut: u32,
  one: f32,
  pad1: u32,
  pad2: u32,
  period: array<vec4f, 4>,
  first: u32,
  count: u32,
  p0: u32,
  p1: u32,
}
