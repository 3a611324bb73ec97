/**
 * Issue 15 §2 on a real adapter (lavapipe here, an H100 in bench runs): `backend: 'auto'` never runs on a software
 * adapter — it runs the CPU backend with one note naming the call, which does not advise installing anything — while
 * `'gpu'` uses any adapter; and Dawn's "artificially reduced" warnings and the Vulkan loader's lines never reach the
 * stderr of `treeline emst <file> --backend gpu`, whether stderr is a terminal's pipe or a file (src/gpu/stderr.ts).
 * Skips without an adapter unless TREELINE_REQUIRE_GPU=1 (test/helpers/gpu.ts).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGpuContext } from '../../src/gpu/context.js';
import { GpuUnavailableError } from '../../src/errors.js';
import { blobs } from '../../src/datasets/generate.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { cliEntry, runCliProcess } from '../helpers/cli.process.js';
import { tempDir, writePointsCsv } from '../helpers/cli.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

const dir = tempDir('treeline-software-');
const csv = writePointsCsv(join(dir, 'points.csv'), blobs({ n: 600, dim: 2, seed: 5, clusters: 3 }), 2);
const NATIVE = /artificially reduced|\[Loader Message\]|^(?:ERROR|WARNING|INFO)(?:\s*\|\s*[A-Z]+)*:\s{2,}/m;

/** Runs `treeline …args` through sh with stderr redirected as `redirect` says; returns the captured stderr. */
function stderrThroughShell(args: string[], redirect: 'pipe' | 'file'): { code: number | null; stderr: string } {
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const cmd = [process.execPath, cliEntry(), ...args].map(q).join(' ');
  const errFile = join(dir, `stderr-${Math.random().toString(36).slice(2)}.txt`);
  // 'pipe': stderr is a pipe (what a shell's `2>&1 | …` gives); 'file': a regular file (`2>err.txt`).
  const script =
    redirect === 'pipe'
      ? `${cmd} 2>&1 >/dev/null | cat; exit "\${PIPESTATUS:-0}"`
      : `${cmd} >/dev/null 2>${q(errFile)}`;
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stderr: redirect === 'pipe' ? r.stdout : readFileSync(errFile, 'utf8') };
}

describe.skipIf(ctx === null)('backend choice on a real adapter', () => {
  it("issue 15: createGpuContext({ hardwareOnly }) refuses a software adapter, as backend 'auto' does", async () => {
    if (ctx!.adapter.software) {
      const p = createGpuContext({ hardwareOnly: true });
      await expect(p).rejects.toBeInstanceOf(GpuUnavailableError);
      await expect(p).rejects.toThrow(/^The only WebGPU adapter \(.+\) is a software implementation \(.+\)/);
    } else {
      const hw = await createGpuContext({ hardwareOnly: true });
      expect(hw.adapter.software).toBeNull();
      await hw.destroy();
    }
  });

  it('issue 15: treeline hdbscan with --backend auto runs on the CPU beside a software adapter, with one note naming hdbscan', async () => {
    const r = await runCliProcess(['hdbscan', csv, '--format', 'json']);
    expect(r.code).toBe(0);
    const backend = (JSON.parse(r.stdout) as { backend: string }).backend;
    if (ctx!.adapter.software) {
      expect(backend).toBe('cpu');
      const notes = r.stderr.split('\n').filter((l) => l.startsWith('treeline: '));
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(
        /^treeline: hdbscan runs on the CPU backend: the only WebGPU adapter \(.+\) is a software implementation/,
      );
      expect(r.stderr).not.toMatch(/install|lavapipe/i);
    } else {
      expect(backend).toBe('gpu');
      expect(r.stderr).not.toMatch(/CPU backend/);
    }
  });

  it('issue 15: treeline emst --backend gpu still uses a software adapter', async () => {
    const r = await runCliProcess(['emst', csv, '--backend', 'gpu', '--format', 'json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { backend: string }).backend).toBe('gpu');
  });

  it.each(['pipe', 'file'] as const)(
    'issue 15: treeline emst --backend gpu prints no Dawn limit warning or Vulkan loader line on stderr (a %s)',
    (redirect) => {
      const r = stderrThroughShell(['emst', csv, '--backend', 'gpu'], redirect);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(NATIVE);
    },
  );
});
