/**
 * The host's worker script for tests. Vitest runs the TypeScript sources, beside which no worker.js lies, so the
 * file's tests bundle src/worker.ts with esbuild (a dev dependency) into a temporary folder first, make it the
 * worker script, and undo both after.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';
import { closeIdleWorkers, setWorkerScript } from '../../src/host/threads.js';
import { generate } from '../../src/datasets/generate.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Registers the file's beforeAll/afterAll that bundle the worker script into a temporary folder named after
 * `prefix` and install it. `dir()` is that folder (for deliberately broken workers), `script()` the bundled script.
 */
export function useBundledWorkerScript(prefix: string): { dir: () => string; script: () => URL } {
  let dir = '';
  let previous: URL | null = null;
  let script: URL | null = null;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    buildSync({
      absWorkingDir: root,
      entryPoints: ['src/worker.ts'],
      outfile: join(dir, 'worker.js'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'warning',
    });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    script = pathToFileURL(join(dir, 'worker.js'));
    previous = setWorkerScript(script);
  });
  afterAll(async () => {
    setWorkerScript(previous);
    await closeIdleWorkers();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir: () => dir, script: () => script! };
}

/** Points with many exact duplicates: seeded uniform points scaled by `scale` and rounded, each appearing 1–4 times. */
export function repeatedIntegerPoints(n: number, dim: number, seed: number, scale: number): Float32Array {
  const base = generate('uniform', { n, dim, seed });
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const src = Math.floor(i / (1 + (i % 4))) * dim;
    for (let a = 0; a < dim; a++) out[i * dim + a] = Math.round(base[src + a] * scale);
  }
  return out;
}
