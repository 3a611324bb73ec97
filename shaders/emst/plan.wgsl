// The start of a Borůvka round: raises the "tree complete" flag, label[n], once the tree has n − 1 edges or the
// previous round added none (a scale-cut forest: every component with an edge out adds one each round, so a round
// adding none leaves none with an edge out), so that rounds encoded ahead of time return at once after the last
// (every round kernel reads the flag first, except the label scan: boruvka.ts). label[n + 1] keeps the edge count
// seen by the previous round's plan, plus one (0: no round yet; zeroed with the flag before the first round).
// Important! Round kernels are dispatched directly over host-sized grids, never indirectly: Dawn validates each
// indirect dispatch with an internal pass of device time (its cost per round: bench/RESULTS.md).
// `at`: where label[n] lies in the binding — n where the labels are bound whole, else (issue 19: labels above one
// storage binding) n minus the first word of the range src/emst/boruvka.ts binds.
struct Plan { n: u32, at: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> p: Plan;
@group(0) @binding(1) var<storage, read> edgeCount: array<u32>;
@group(0) @binding(2) var<storage, read_write> label: array<u32>;

@compute @workgroup_size(1)
fn main() {
  let e = edgeCount[0];
  let previous = label[p.at + 1u];
  let stuck = previous != 0u && previous - 1u == e;
  label[p.at] = select(0u, 1u, e + 1u >= p.n || stuck);
  label[p.at + 1u] = e + 1u;
}
