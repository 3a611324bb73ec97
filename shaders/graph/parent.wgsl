// Binding 2 of the graph-MSF kernels that change the union-find (init, select, labels) or find with path halving:
// the parents as atomics, for unionfind/unionfind (included with it).

@group(0) @binding(2) var<storage, read_write> uf_parent: array<atomic<u32>>;
