/**
 * The CPU backend's Borůvka rounds on Node worker threads (src/emst/boruvka.threads.ts, src/emst/rounds.cpu.ts): the
 * edge list of one thread, bit for bit, on seeded inputs where ties decide the tree (an integer grid, exact
 * duplicates), with minSamples 5, a scale cut and alpha ≠ 1, and with the edge sort split in two; a worker failing
 * inside a round rejects with its message and the next call runs.
 *
 * As in emst.threads.test.ts the worker script is bundled from src/worker.ts with esbuild first.
 * Every threaded case checks that the workers ran chunks of the rounds (boruvkaThreadStats), so no test passes on a
 * silent fallback to one thread.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emstCpu, emstCpuAsync, type EmstCpuOptions } from '../../src/emst/boruvka.cpu.js';
import { boruvkaThreadStats } from '../../src/emst/boruvka.threads.js';
import { setWorkerScript } from '../../src/host/threads.js';
import { generate } from '../../src/datasets/generate.js';
import { repeatedIntegerPoints, useBundledWorkerScript } from '../helpers/workers.js';
import { metricOf } from '../../src/emst/metric.js';

const worker = useBundledWorkerScript('treeline-rounds-');

/** A seeded permutation of 0 … n − 1 (xorshift32). */
function permutation(n: number, seed: number): Uint32Array {
  const p = Uint32Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const j = s % (i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

/** An integer side × side grid in a seeded order: every edge of the tree ties with many others. */
function grid(side: number, seed: number): Float32Array {
  const order = permutation(side * side, seed);
  const out = new Float32Array(2 * side * side);
  for (let i = 0; i < side * side; i++) {
    out[2 * i] = order[i] % side;
    out[2 * i + 1] = Math.floor(order[i] / side);
  }
  return out;
}

const duplicates = (n: number, dim: number) => repeatedIntegerPoints(n, dim, 11, 30);

const edges = (r: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array }) => ({
  sources: r.sources,
  targets: r.targets,
  weights: r.weights,
});

describe('emstCpuAsync(points, { threads }) runs the Borůvka rounds on the workers and gives the edges of one thread', () => {
  const cases: { name: string; points: Float32Array; dim: number; options: EmstCpuOptions }[] = [
    { name: 'uniform 2D', points: generate('uniform', { n: 8000, dim: 2, seed: 21 }), dim: 2, options: {} },
    { name: 'integer grid 2D (ties)', points: grid(90, 22), dim: 2, options: {} },
    { name: 'duplicates 2D', points: duplicates(6000, 2), dim: 2, options: {} },
    {
      name: 'uniform 2D, minSamples 5',
      points: generate('uniform', { n: 8000, dim: 2, seed: 23 }),
      dim: 2,
      options: { metric: metricOf(5) },
    },
    { name: 'integer grid 2D, minSamples 5', points: grid(80, 24), dim: 2, options: { metric: metricOf(5) } },
    {
      name: 'duplicates 3D, minSamples 5, alpha 1.5',
      points: duplicates(5000, 3),
      dim: 3,
      options: { metric: metricOf(5, 1.5) },
    },
    {
      name: 'blobs 2D, scale cut',
      points: generate('blobs', { n: 6000, dim: 2, seed: 25 }),
      dim: 2,
      options: { minEdgeLength: 0.02 },
    },
    {
      name: 'uniform 3D, periodic',
      points: generate('uniform', { n: 6000, dim: 3, seed: 26 }),
      dim: 3,
      options: { period: new Float32Array([1, 1, 1]) },
    },
  ];
  for (const c of cases) {
    it(`${c.name}: threads 2 and 3 agree with one thread bit for bit`, async () => {
      const one = edges(emstCpu(c.points, c.dim, c.options));
      const before = boruvkaThreadStats.workerChunks;
      expect(edges(await emstCpuAsync(c.points, c.dim, { ...c.options, threads: 2 }))).toEqual(one);
      expect(edges(await emstCpuAsync(c.points, c.dim, { ...c.options, threads: 3 }))).toEqual(one);
      expect(boruvkaThreadStats.workerChunks - before, 'chunks of the rounds run by the workers').toBeGreaterThan(0);
      expect(edges(await emstCpuAsync(c.points, c.dim, { ...c.options, threads: 1 }))).toEqual(one);
    });
  }
});

describe('emstCpuAsync(points, { threads: 2 }) sorts the edges in two halves from 50,000 edges on', () => {
  it('uniform 2D and an integer grid (ties across the halves): the edges of one thread', async () => {
    for (const points of [generate('uniform', { n: 60_000, dim: 2, seed: 28 }), grid(250, 29)]) {
      const one = edges(emstCpu(points, 2));
      expect(edges(await emstCpuAsync(points, 2, { threads: 2 }))).toEqual(one);
    }
  });
});

describe('emstCpuAsync fails cleanly when a worker fails inside a Borůvka round', () => {
  it('rejects with a message quoting the worker, and the next call runs', async () => {
    const bad = join(worker.dir(), 'bad-round.worker.js');
    writeFileSync(
      bad,
      `import { parentPort } from 'node:worker_threads';
import './worker.js';
parentPort.on('message', (m) => { if (m.kind === 'boruvka-phase' && m.round === 2) throw new Error('boom in round 2'); });
`,
    );
    setWorkerScript(pathToFileURL(bad));
    const points = generate('uniform', { n: 6000, dim: 2, seed: 27 });
    try {
      await expect(emstCpuAsync(points, 2, { threads: 2 })).rejects.toThrow(
        /Borůvka worker thread failed: .*boom in round 2/s,
      );
    } finally {
      setWorkerScript(worker.script());
    }
    const one = edges(emstCpu(points, 2));
    expect(edges(await emstCpuAsync(points, 2, { threads: 2 }))).toEqual(one);
  });
});
