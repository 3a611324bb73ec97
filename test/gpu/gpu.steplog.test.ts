/**
 * TREELINE_GPU_STEPLOG=1 (src/gpu/context.ts, session 13's diagnosis of the 4·10^8 "stall"): every recorded operation
 * is submitted by itself and logged when submitted and when the GPU has finished it. The same work in the same order,
 * so the CLI's answer is the same as without it, every submission is finished, and the kernels are named.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloud } from '../helpers/clouds.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { runCliProcess } from '../helpers/cli.process.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

describe.skipIf(!ctx)('TREELINE_GPU_STEPLOG', () => {
  it('treeline emst --backend gpu: the same edges with and without it, each submission logged and finished', async () => {
    const pts = cloud('clustered', 3000, 3, 5);
    const dir = mkdtempSync(join(tmpdir(), 'treeline-steplog-'));
    try {
      const file = join(dir, 'p.csv');
      const rows: string[] = [];
      for (let i = 0; i < 3000; i++) rows.push(`${pts[3 * i]},${pts[3 * i + 1]},${pts[3 * i + 2]}`);
      writeFileSync(file, `x,y,z\n${rows.join('\n')}\n`);
      const args = ['emst', file, '--backend', 'gpu', '--format', 'csv'];
      const plain = await runCliProcess(args, { env: { TREELINE_GPU_STEPLOG: undefined } });
      const logged = await runCliProcess(args, { env: { TREELINE_GPU_STEPLOG: '1' } });
      expect(plain.code).toBe(0);
      expect(logged.code).toBe(0);
      expect(plain.stderr).not.toMatch(/^\[gpu\]/m);
      expect(logged.stdout).toBe(plain.stdout);
      expect(plain.stdout.trim().split('\n').length).toBe(3000); // a header and 2999 edges
      const submitted = [...logged.stderr.matchAll(/^\[gpu\] (\d+) submitted (\S+) \((\S+)\) at [\d.]+ s$/gm)];
      const finished = new Set([...logged.stderr.matchAll(/^\[gpu\] (\d+) finished /gm)].map((m) => Number(m[1])));
      expect(submitted.length).toBeGreaterThan(20);
      // Numbered 1, 2, … in order, and every one finished before the process ended.
      expect(submitted.map((m) => Number(m[1]))).toEqual(submitted.map((_, i) => i + 1));
      expect(finished.size).toBe(submitted.length);
      const kernels = new Set(submitted.map((m) => m[2]));
      for (const k of ['bvh::karras', 'emst::merge'])
        expect(kernels.has(k) || [...kernels].some((x) => x.startsWith(k))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
