/**
 * The CPU backend's k-NN phase on Node worker threads (src/emst/neighbours.threads.ts): the same edge list as one
 * thread, bit for bit, on seeded inputs (2D and 3D, minSamples 1 and 5, duplicates, a periodic box); a failing worker
 * rejects with its message; an AbortSignal stops the phase; workers never keep Node from exiting.
 *
 * Vitest runs the TypeScript sources, beside which no worker.js lies, so the worker script is bundled from
 * src/worker.ts with esbuild (a dev dependency) first. Every threaded call checks that the workers
 * ran all n queries (neighbourThreadStats), so no test passes on a silent fallback to one thread.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { emstCpu, emstCpuAsync } from '../../src/emst/boruvka.cpu.js';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { setWorkerScript } from '../../src/host/threads.js';
import { neighbourThreadStats } from '../../src/emst/neighbours.threads.js';
import { AbortError, InputError } from '../../src/errors.js';
import { generate } from '../../src/datasets/generate.js';
import { repeatedIntegerPoints, useBundledWorkerScript } from '../helpers/workers.js';
import { metricOf, type Metric } from '../../src/emst/metric.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const worker = useBundledWorkerScript('treeline-threads-');

const duplicates = (n: number, dim: number) => repeatedIntegerPoints(n, dim, 7, 20);

/** The edges of emstCpuAsync with `threads`, asserting that the workers ran every query when threads > 1. */
async function edgesOn(
  points: Float32Array,
  dim: number,
  threads: number,
  extra: { metric?: Metric; period?: Float32Array },
) {
  const before = neighbourThreadStats.workerQueries;
  const r = await emstCpuAsync(points, dim, { ...extra, threads });
  expect(neighbourThreadStats.workerQueries - before, `queries run by the workers (threads ${threads})`).toBe(
    threads > 1 ? points.length / dim : 0,
  );
  return { sources: r.sources, targets: r.targets, weights: r.weights };
}

describe('emstCpuAsync(points, { threads }) gives the edge list of one thread', () => {
  const cases: { name: string; points: Float32Array; dim: number; period?: Float32Array }[] = [
    { name: 'uniform 2D', points: generate('uniform', { n: 5000, dim: 2, seed: 1 }), dim: 2 },
    { name: 'blobs 2D', points: generate('blobs', { n: 4500, dim: 2, seed: 2 }), dim: 2 },
    { name: 'normal 3D', points: generate('normal', { n: 4000, dim: 3, seed: 3 }), dim: 3 },
    { name: 'duplicates 2D', points: duplicates(3000, 2), dim: 2 },
    { name: 'duplicates 3D', points: duplicates(2500, 3), dim: 3 },
  ];
  for (const c of cases) {
    for (const minSamples of [1, 5]) {
      it(`${c.name}, minSamples ${minSamples}: threads 1, 2 and 3 agree bit for bit`, async () => {
        const one = await edgesOn(c.points, c.dim, 1, { metric: metricOf(minSamples) });
        expect(one.sources.length).toBe(c.points.length / c.dim - 1);
        expect(await edgesOn(c.points, c.dim, 2, { metric: metricOf(minSamples) })).toEqual(one);
        expect(await edgesOn(c.points, c.dim, 3, { metric: metricOf(minSamples) })).toEqual(one);
        // …and the synchronous single-threaded entry point.
        const sync = emstCpu(c.points, c.dim, { metric: metricOf(minSamples) });
        expect({ sources: sync.sources, targets: sync.targets, weights: sync.weights }).toEqual(one);
      });
    }
  }

  it('a periodic box: threads 1 and 2 agree bit for bit', async () => {
    const points = generate('uniform', { n: 4000, dim: 3, seed: 4 });
    const period = new Float32Array([1, 1, 1]);
    const one = await edgesOn(points, 3, 1, { period });
    expect(await edgesOn(points, 3, 2, { period })).toEqual(one);
  });

  it('emst(points, { backend: cpu, threads: 2 }) returns the edges of threads: 1', async () => {
    const points = generate('uniform', { n: 3000, dim: 2, seed: 5 });
    const before = neighbourThreadStats.workerQueries;
    const two = await emst(points, { dim: 2, backend: 'cpu', threads: 2, minSamples: 3 });
    expect(neighbourThreadStats.workerQueries - before).toBe(3000);
    const one = await emst(points, { dim: 2, backend: 'cpu', threads: 1, minSamples: 3 });
    expect([two.sources, two.targets, two.weights]).toEqual([one.sources, one.targets, one.weights]);
  });

  it('hdbscan and mstStats pass threads to the CPU EMST: the workers run, the labels and statistics are those of one thread', async () => {
    const points = generate('blobs', { n: 3000, dim: 2, seed: 6 });
    let before = neighbourThreadStats.workerQueries;
    const two = await hdbscan(points, { dim: 2, minClusterSize: 15, backend: 'cpu', threads: 2 });
    expect(neighbourThreadStats.workerQueries - before).toBe(3000);
    const one = await hdbscan(points, { dim: 2, minClusterSize: 15, backend: 'cpu', threads: 1 });
    expect([...two.labels]).toEqual([...one.labels]);
    before = neighbourThreadStats.workerQueries;
    const s2 = await mstStats(points, { dim: 2, backend: 'cpu', threads: 2 });
    expect(neighbourThreadStats.workerQueries - before).toBe(3000);
    const s1 = await mstStats(points, { dim: 2, backend: 'cpu', threads: 1 });
    expect([...s2.edgeLengths]).toEqual([...s1.edgeLengths]);
    await expect(hdbscan(points, { dim: 2, minClusterSize: 15, backend: 'cpu', threads: 0 })).rejects.toThrow(
      /threads to be an integer >= 1/,
    );
  });

  it('emst(points, { threads }) rejects a thread count that is not an integer >= 1, naming it', async () => {
    const points = new Float32Array([0, 0, 1, 0, 0, 1]);
    for (const threads of [0, 1.5, -2, Number.NaN]) {
      await expect(emst(points, { dim: 2, backend: 'cpu', threads })).rejects.toThrow(InputError);
    }
    await expect(emst(points, { dim: 2, backend: 'cpu', threads: 0 })).rejects.toThrow(
      /threads to be an integer >= 1, got 0/,
    );
    // The direct entry point checks it too (2.5 once started three workers).
    for (const threads of [0, 2.5, -1]) {
      await expect(emstCpuAsync(points, 2, { threads })).rejects.toThrow(/threads to be an integer >= 1/);
    }
  });
});

describe('emstCpuAsync on worker threads fails and aborts cleanly', () => {
  it('an error inside a worker rejects with a message quoting it, and the next call runs', async () => {
    const bad = join(worker.dir(), 'bad.worker.js');
    writeFileSync(
      bad,
      `import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => { throw new Error('boom in the worker'); });\n`,
    );
    setWorkerScript(pathToFileURL(bad));
    const points = generate('uniform', { n: 3000, dim: 2, seed: 6 });
    try {
      await expect(emstCpuAsync(points, 2, { threads: 2 })).rejects.toThrow(
        /k-NN worker thread failed: .*boom in the worker/s,
      );
    } finally {
      setWorkerScript(worker.script());
    }
    const one = await edgesOn(points, 2, 1, {});
    expect(await edgesOn(points, 2, 2, {})).toEqual(one);
  });

  it('an AbortSignal fired during the k-NN phase rejects with AbortError, and the next call runs', async () => {
    const points = generate('uniform', { n: 300_000, dim: 2, seed: 8 });
    const controller = new AbortController();
    const before = neighbourThreadStats.jobs;
    const call = emstCpuAsync(points, 2, { threads: 2, signal: controller.signal });
    // Fires once this thread has built the BVH and awaits the workers (the build is synchronous).
    setTimeout(() => controller.abort(), 1);
    await expect(call).rejects.toThrow(AbortError);
    await expect(call).rejects.toThrow(/during its k-NN phase/);
    expect(neighbourThreadStats.jobs).toBe(before);
    const small = generate('uniform', { n: 3000, dim: 2, seed: 9 });
    expect(await edgesOn(small, 2, 2, {})).toEqual(await edgesOn(small, 2, 1, {}));
  });

  it('workers never keep Node from exiting', () => {
    // A process that runs emst on two worker threads and then simply ends: it must exit by itself.
    const entry = join(worker.dir(), 'exit.entry.ts');
    writeFileSync(
      entry,
      `import { emst } from ${JSON.stringify(join(root, 'src/emst/emst.ts'))};
import { neighbourThreadStats } from ${JSON.stringify(join(root, 'src/emst/neighbours.threads.ts'))};
import { generate } from ${JSON.stringify(join(root, 'src/datasets/generate.ts'))};
const tree = await emst(generate('uniform', { n: 20000, dim: 2, seed: 1 }), { dim: 2, backend: 'cpu', threads: 2 });
console.log(JSON.stringify({ edges: tree.sources.length, workerQueries: neighbourThreadStats.workerQueries }));
`,
    );
    // The bundle's worker script is worker.js one folder up, as dist/worker.js is from dist/host/.
    buildSync({
      entryPoints: [entry],
      outfile: join(worker.dir(), 'exit', 'exit.js'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'error',
    });
    const run = spawnSync(process.execPath, [join(worker.dir(), 'exit', 'exit.js')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.error, 'the process did not exit by itself within 30 s').toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ edges: 19999, workerQueries: 20000 });
  });
});
