/**
 * The 'forest' task's contraction as a plain Kruskal with floors, for tests (contractForest, contractForestAsync,
 * contractForestThreaded): the tree's edges in the order given (canonical (key, lo, hi)), a union-find carrying each
 * component's least floor; an edge is safe iff one side's least floor is above its key (strict: a crossing edge at an
 * equal key may win the tie on ids), else open. Labels: the smallest row of each component under the safe edges.
 */

/** n − 1 tree edges (rows lo[e] < hi[e]) with their keys. */
export interface FloorTree {
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
}

export interface FloorContraction {
  /** The safe and open edges' numbers, ascending. */
  safe: number[];
  open: number[];
  /** Row r's label: the smallest row of its component under the safe edges. */
  label: (r: number) => number;
}

/** Kruskal over `tree` (in order) with row r's floor floor[r] (+∞: none), n rows. */
export function kruskalWithFloors(tree: FloorTree, floor: Float32Array, n: number): FloorContraction {
  const parent = Uint32Array.from({ length: n }, (_, i) => i);
  const least = Float64Array.from(floor);
  const label = Uint32Array.from({ length: n }, (_, i) => i);
  const find = (p: Uint32Array, x: number): number => {
    while (p[x] !== x) x = p[x] = p[p[x]];
    return x;
  };
  const safe: number[] = [];
  const open: number[] = [];
  for (let e = 0; e < tree.keys.length; e++) {
    const a = find(parent, tree.lo[e]);
    const b = find(parent, tree.hi[e]);
    if (least[a] > tree.keys[e] || least[b] > tree.keys[e]) {
      safe.push(e);
      const x = find(label, tree.lo[e]);
      const y = find(label, tree.hi[e]);
      if (x < y) label[y] = x;
      else label[x] = y;
    } else open.push(e);
    parent[b] = a;
    least[a] = Math.min(least[a], least[b]);
  }
  return { safe, open, label: (r: number) => find(label, r) };
}
