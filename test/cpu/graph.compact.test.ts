/**
 * Issue 15, §4.2: memory follows the edges a graph holds, not the vertex count it claims. Vertex ids that no edge
 * touches are compacted away (src/graph/compact.ts); the forest, its endpoints, the component count and the labels
 * come back in the original ids, identical to the uncompacted computation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { graphMst, graphMstCpu } from '../../src/graph/mst.js';
import { compactVertices, COMPACT_SLACK, MAX_SPARSE_LABELS } from '../../src/graph/compact.js';
import { validateGraph } from '../../src/graph/validate.js';
import { InputError } from '../../src/errors.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { randomGraph } from '../helpers/graph.random.js';

const dir = mkdtempSync(join(tmpdir(), 'treeline-compact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resident memory growth (MB) across `f`. */
async function rssGrowth<T>(f: () => Promise<T> | T): Promise<[T, number]> {
  const before = process.memoryUsage().rss;
  const r = await f();
  return [r, (process.memoryUsage().rss - before) / 2 ** 20];
}

describe('issue 15: graphMst compacts vertex ids that no edge touches', () => {
  it('graphMst with numVertices = 2^32 − 1 and three edges: the forest in original ids, little memory', async () => {
    const g = {
      numVertices: 2 ** 32 - 1,
      sources: Uint32Array.from([0, 4_000_000_000, 7]),
      targets: Uint32Array.from([4_000_000_000, 7, 2 ** 32 - 2]),
      weights: Float32Array.from([2, 1, 3]),
    };
    for (const backend of ['cpu', 'auto'] as const) {
      const [r, mb] = await rssGrowth(() => graphMst(g, { backend }));
      expect(mb).toBeLessThan(300);
      expect(Array.from(r.edgeIds)).toEqual([1, 0, 2]);
      expect(Array.from(r.sources)).toEqual([7, 0, 7]);
      expect(Array.from(r.targets)).toEqual([4_000_000_000, 4_000_000_000, 2 ** 32 - 2]);
      expect(Array.from(r.weights)).toEqual([1, 2, 3]);
      expect(r.totalWeight).toBe(6);
      expect(r.components).toBe(2 ** 32 - 1 - 3);
    }
    expect(graphMstCpu(g).components).toBe(2 ** 32 - 4);
  });

  it('graphMst with labels on a huge sparse graph is a clear InputError, not an allocation of numVertices labels', async () => {
    const g = {
      numVertices: 2 ** 32 - 1,
      sources: Uint32Array.from([0]),
      targets: Uint32Array.from([5]),
      weights: Uint32Array.from([1]),
    };
    await expect(graphMst(g, { backend: 'cpu', labels: true })).rejects.toThrow(InputError);
    expect(() => graphMstCpu(g, { labels: true })).toThrow(
      /numVertices ≤ 16777216 \(2\^24\) when component labels are asked for .* got numVertices = 4294967295 with 1 edge: the labels would take 16\.0 GiB/,
    );
  });

  it('a compacted graph gives the same forest, components and labels as the uncompacted one', () => {
    for (const seed of [1, 2, 3]) {
      const base = randomGraph(seed, { numVertices: 300, numEdges: 500, weightType: 'i32', distinctWeights: 20 });
      // Spread the vertices over a big id range; the gaps are isolated vertices.
      const spread = (a: Uint32Array) => a.map((v) => v * 997 + 13);
      const n = 300 * 997 + 13;
      const sparse = {
        numVertices: n,
        sources: spread(base.sources),
        targets: spread(base.targets),
        weights: base.weights,
      };
      expect(compactVertices(validateGraph(sparse))).not.toBeNull();
      const want = graphMstCpu({ ...base, numVertices: base.numVertices }, { labels: true });
      const got = graphMstCpu(sparse, { labels: true });
      expect(Array.from(got.edgeIds)).toEqual(Array.from(want.edgeIds));
      expect(Array.from(got.sources)).toEqual(Array.from(spread(want.sources)));
      expect(Array.from(got.targets)).toEqual(Array.from(spread(want.targets)));
      expect(got.totalWeight).toBe(want.totalWeight);
      expect(got.components).toBe(want.components + (n - base.numVertices));
      const labels = got.componentLabels!;
      expect(labels.length).toBe(n);
      for (let v = 0; v < base.numVertices; v++) expect(labels[v * 997 + 13]).toBe(want.componentLabels![v] * 997 + 13);
      expect(labels[14]).toBe(14); // isolated: its own component
    }
  });

  it('graphs whose vertices the edges can touch are left alone', () => {
    const g = randomGraph(4, { numVertices: 100, numEdges: 10, weightType: 'f32', distinctWeights: 10 });
    expect(compactVertices(validateGraph({ ...g, numVertices: 20 + COMPACT_SLACK }))).toBeNull();
    expect(MAX_SPARSE_LABELS).toBe(2 ** 24);
  });
});

describe('issue 15: treeline mst on tiny graph files that name huge vertex ids (child process)', () => {
  // A small heap: the run must not hold memory in proportion to the ids (it took 15.7 GB before).
  const env = { NODE_OPTIONS: '--max-old-space-size=256' };

  it('treeline mst g.txt with vertex 4000000000 succeeds quickly, in the original ids', async () => {
    const file = join(dir, 'g.txt');
    writeFileSync(file, '0 1 1\n0 4000000000 1\n');
    const t0 = Date.now();
    const r = await runCliProcess(['mst', file, '--backend', 'cpu', '--format', 'json'], { env, timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/RangeError|heap/i);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.numVertices).toBe(4_000_000_001);
    expect(out.sources).toEqual([0, 0]);
    expect(out.targets).toEqual([1, 4_000_000_000]);
    expect(out.numComponents).toBe(4_000_000_001 - 2);
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it('treeline mst on a .gr whose header claims 2·10^9 vertices succeeds quickly', async () => {
    const file = join(dir, 'big.gr');
    writeFileSync(file, 'p sp 2000000000 2\na 1 2 5\na 2 2000000000 7\n');
    const r = await runCliProcess(['mst', file, '--backend', 'cpu', '--format', 'json'], { env, timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.targets).toEqual([1, 1_999_999_999]);
    expect(out.totalWeight).toBe(12);
    expect(out.numComponents).toBe(2_000_000_000 - 2);
  });

  it('treeline mst --labels on such a file is a one-line input error (exit 2)', async () => {
    const file = join(dir, 'g2.txt');
    writeFileSync(file, '0 1 1\n0 4000000000 1\n');
    const r = await runCliProcess(['mst', file, '--backend', 'cpu', '--format', 'json', '--labels'], {
      env,
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/numVertices = 4000000001/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
