// Indirect dispatch arguments for a gated scan (src/primitives/scan.ts, `encode(…, { gate })`): the scan's grids
// (host-computed, in dispatch order) when the gate word is non-zero, empty grids when it is zero, so a scan
// recorded ahead of time costs almost nothing on the GPU. Not used by Borůvka any more: under Dawn every indirect
// dispatch costs ~0.45 ms of device time for its validation pass (bench/RESULTS.md), more than a small scan.
struct Gate { gate_word: u32, count: u32, pad0: u32, pad1: u32, grids: array<vec4u, 8> }
@group(0) @binding(0) var<uniform> p: Gate;
@group(0) @binding(1) var<storage, read> gate: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(1)
fn main() {
  let open = gate[p.gate_word] != 0u;
  for (var i = 0u; i < p.count; i++) {
    // Grid i is (x, y) = grids[i / 2].xy or .zw.
    let g = p.grids[i / 2u];
    let xy = select(g.xy, g.zw, (i & 1u) == 1u);
    args[3u * i] = select(0u, xy.x, open);
    args[3u * i + 1u] = xy.y;
    args[3u * i + 2u] = 1u;
  }
}
