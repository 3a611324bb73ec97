/**
 * Checking an MST answer without an oracle (DESIGN.md, "Every benchmark run also checks its answer";
 * CONVENTIONS.md 13: invariants, not snapshots). Used by the tests and the benchmarks, on either backend's output.
 *
 * A point-cloud MST (or spanning forest) of n points in c components must have:
 *   - parallel arrays of one length, n − c edges;
 *   - sources[i] < targets[i] < n;
 *   - finite, non-negative weights;
 *   - no cycle (union-find: every edge joins two different sets);
 *   - the canonical order: (weight, source, target) strictly ascending (which also rules out repeated edges).
 * Minimality needs an oracle: compare `totalWeight` with one (relativeDifference below).
 */
import { TreelineError } from '../errors.js';
import { UnionFind } from '../unionfind/unionfind.cpu.js';
import type { EdgeList } from './edges.cpu.js';

export interface TreeCheck {
  /** True when no problem was found. */
  ok: boolean;
  /** What is wrong, one sentence each (at most `maxProblems`). */
  problems: string[];
  /** Number of edges. */
  edges: number;
  /** Number of components the edges leave (n − edges when there is no cycle). */
  components: number;
  /** Sum of the weights in float64. */
  totalWeight: number;
}

export interface TreeCheckOptions {
  /** Expected number of components (default 1 for n ≥ 1, 0 for n = 0: a spanning tree). */
  components?: number;
  /** Check the canonical (weight, source, target) order (default true). */
  canonical?: boolean;
  /** Stop listing problems after this many (default 10). */
  maxProblems?: number;
}

/** Checks that `tree` is a spanning tree (or forest) of n points in canonical order; never throws for bad trees. */
export function checkSpanningTree(n: number, tree: EdgeList, options: TreeCheckOptions = {}): TreeCheck {
  const { sources, targets, weights } = tree;
  const expected = options.components ?? (n > 0 ? 1 : 0);
  const maxProblems = options.maxProblems ?? 10;
  const problems: string[] = [];
  const report = (p: string) => {
    if (problems.length < maxProblems) problems.push(p);
  };
  const m = sources.length;
  if (targets.length !== m || weights.length !== m) {
    report(`sources, targets and weights differ in length: ${m}, ${targets.length}, ${weights.length}.`);
    return { ok: false, problems, edges: m, components: n, totalWeight: NaN };
  }
  if (m !== n - expected) report(`expected n − c = ${n} − ${expected} = ${n - expected} edges, got ${m}.`);
  const uf = new UnionFind(n);
  let components = n;
  let total = 0;
  for (let i = 0; i < m; i++) {
    const s = sources[i];
    const t = targets[i];
    const w = weights[i];
    total += w;
    if (!(w >= 0 && w < Infinity)) report(`edge ${i} (${s}, ${t}) has weight ${w}; expected finite and >= 0.`);
    if (!(s < t)) report(`edge ${i} has source ${s} >= target ${t}.`);
    if (!(t < n)) {
      report(`edge ${i} (${s}, ${t}) names a point >= n=${n}.`);
      continue;
    }
    if (uf.union(s, t)) components--;
    else report(`edge ${i} (${s}, ${t}, ${w}) closes a cycle.`);
    if (options.canonical !== false && i > 0) {
      const pw = weights[i - 1];
      const ps = sources[i - 1];
      const pt = targets[i - 1];
      const after = w > pw || (w === pw && (s > ps || (s === ps && t > pt)));
      if (!after)
        report(
          `edge ${i} (${s}, ${t}, ${w}) does not follow edge ${i - 1} (${ps}, ${pt}, ${pw}) in (weight, source, target) order.`,
        );
    }
  }
  if (components !== expected && m === n - expected)
    report(`the edges leave ${components} components, expected ${expected}.`);
  return { ok: problems.length === 0, problems, edges: m, components, totalWeight: total };
}

/** As checkSpanningTree, but throws a TreelineError listing the problems; returns the total weight. */
export function assertSpanningTree(n: number, tree: EdgeList, options: TreeCheckOptions = {}): number {
  const check = checkSpanningTree(n, tree, options);
  if (!check.ok) throw new TreelineError(`Invalid spanning tree of ${n} points: ${check.problems.join(' ')}`);
  return check.totalWeight;
}

/** |a − b| / max(|a|, |b|), 0 when both are 0: the relative difference of two total weights. */
export function relativeDifference(a: number, b: number): number {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale === 0 ? 0 : Math.abs(a - b) / scale;
}
