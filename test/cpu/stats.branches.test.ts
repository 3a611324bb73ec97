/**
 * findBranches (the linear-time XOR-linked walk) against a simple independent reference on seeded random trees and
 * forests: adjacency lists, a walk from every node of degree ≠ 2 along each of its edges, chains of ≥ 2 edges kept
 * once (keyed by their sorted edge ids). Integer edge lengths make the sums exact, so branches compare exactly.
 */
import { describe, expect, it } from 'vitest';
import { degreesOf, findBranches, nodeLinks } from '../../src/stats/branches.cpu.js';
import { nodeDegrees, degreeCounts } from '../../src/stats/degree.js';
import { distance, type Geometry } from '../../src/stats/lengths.js';
import { mulberry32 } from '../helpers/random.js';

interface RandomTree {
  n: number;
  sources: Uint32Array;
  targets: Uint32Array;
  lengths: Float64Array;
  geometry: Geometry;
}

/** A random tree (or forest) on n nodes: `chain` is the chance that node i hangs off node i − 1 (long branches). */
function randomTree(n: number, seed: number, chain: number, drop: number): RandomTree {
  const rand = mulberry32(seed);
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  const edges: [number, number][] = [];
  for (let i = 1; i < n; i++) {
    const parent = rand() < chain ? i - 1 : Math.floor(rand() * i);
    if (rand() < drop) continue;
    edges.push(rand() < 0.5 ? [perm[i], perm[parent]] : [perm[parent], perm[i]]);
  }
  for (let i = edges.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [edges[i], edges[j]] = [edges[j], edges[i]];
  }
  const coords = Float64Array.from({ length: 2 * n }, () => Math.floor(rand() * 100));
  return {
    n,
    sources: Uint32Array.from(edges, (e) => e[0]),
    targets: Uint32Array.from(edges, (e) => e[1]),
    lengths: Float64Array.from(edges, () => 1 + Math.floor(rand() * 1000)),
    geometry: { coords, dim: 2 },
  };
}

/** The reference: "ends|length|edges|endToEnd" per branch, sorted. */
function referenceBranches(t: RandomTree): string[] {
  const adj: { edge: number; other: number }[][] = Array.from({ length: t.n }, () => []);
  t.sources.forEach((s, e) => {
    adj[s].push({ edge: e, other: t.targets[e] });
    adj[t.targets[e]].push({ edge: e, other: s });
  });
  const seen = new Set<string>();
  const out: string[] = [];
  for (let u = 0; u < t.n; u++) {
    if (adj[u].length === 2) continue;
    for (const first of adj[u]) {
      const path = [first.edge];
      let prev = first.edge;
      let v = first.other;
      while (adj[v].length === 2) {
        const next = adj[v][0].edge === prev ? adj[v][1] : adj[v][0];
        path.push(next.edge);
        prev = next.edge;
        v = next.other;
      }
      if (path.length < 2) continue;
      const key = [...path].sort((a, b) => a - b).join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      const length = path.reduce((s, e) => s + t.lengths[e], 0);
      out.push(`${Math.min(u, v)}-${Math.max(u, v)}|${length}|${path.length}|${distance(t.geometry, u, v)}`);
    }
  }
  return out.sort();
}

function ours(t: RandomTree): string[] {
  const links = nodeLinks(t.n, t.sources, t.targets);
  expect(degreesOf(links)).toEqual(nodeDegrees(t.n, t.sources, t.targets));
  const b = findBranches(t.sources, t.targets, links, t.lengths, t.geometry);
  return Array.from(b.lengths, (length, i) => {
    const [u, v] = [b.ends[2 * i], b.ends[2 * i + 1]];
    return `${Math.min(u, v)}-${Math.max(u, v)}|${length}|${b.edgeCounts[i]}|${b.endToEnd[i]}`;
  }).sort();
}

describe('findBranches equals a simple reference on seeded random trees', () => {
  const shapes = [
    { name: 'random recursive trees', chain: 0, drop: 0 },
    { name: 'path-heavy trees (long branches)', chain: 0.8, drop: 0 },
    { name: 'forests (5 % of edges dropped)', chain: 0.5, drop: 0.05 },
  ];
  for (const { name, chain, drop } of shapes) {
    it(name, () => {
      let branches = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const n = 1 + Math.floor(mulberry32(seed * 7919)() * 3000);
        const t = randomTree(n, seed, chain, drop);
        const expected = referenceBranches(t);
        expect(ours(t), `seed ${seed}, n ${n}`).toEqual(expected);
        branches += expected.length;
      }
      expect(branches).toBeGreaterThan(100);
    });
  }

  it('a 200 000-node path is one branch of 199 999 edges (no recursion, no stack growth)', () => {
    const n = 200_000;
    const sources = Uint32Array.from({ length: n - 1 }, (_, i) => i);
    const targets = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
    const lengths = new Float64Array(n - 1).fill(1);
    const coords = Float64Array.from({ length: 2 * n }, (_, k) => (k % 2 === 0 ? k / 2 : 0));
    const degree = nodeDegrees(n, sources, targets);
    const b = findBranches(sources, targets, nodeLinks(n, sources, targets), lengths, { coords, dim: 2 });
    expect(Array.from(b.edgeCounts)).toEqual([n - 1]);
    expect(Array.from(b.lengths)).toEqual([n - 1]);
    expect(Array.from(b.endToEnd)).toEqual([n - 1]);
    expect(Array.from(degreeCounts(degree))).toEqual([0, 2, n - 2]);
  });
});
