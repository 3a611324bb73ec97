/** The plain union-find the test oracles share (Kruskal, the scale-cut Kruskal, single linkage): not the code's. */
export class PlainUnionFind {
  readonly parent: number[];
  /** Set sizes, valid at roots. */
  readonly size: number[];

  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
    this.size = new Array<number>(n).fill(1);
  }

  /** The root of x's set (path compression). */
  find(x: number): number {
    let r = x;
    while (this.parent[r] !== r) r = this.parent[r];
    while (this.parent[x] !== r) {
      const next = this.parent[x];
      this.parent[x] = r;
      x = next;
    }
    return r;
  }

  /** Joins the sets of roots a ≠ b, the larger (a on ties) becoming the root; returns the new root. */
  unionRoots(a: number, b: number): number {
    const [big, small] = this.size[a] >= this.size[b] ? [a, b] : [b, a];
    this.parent[small] = big;
    this.size[big] += this.size[small];
    return big;
  }
}
