/**
 * The scripts in examples/ run as a user runs them (`node examples/<name>.mjs`), as child processes. They import
 * 'treeline' (and 'treeline/kernels'), which Node resolves to this package's dist/, which may be stale or missing
 * while vitest runs the sources, so each is bundled with esbuild with those imports pointed at src/index.ts and
 * src/kernels.ts (other packages stay external and resolve from this checkout's node_modules:
 * the bundle lies in node_modules/.cache, as in test/helpers/cli.process.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'treeline-examples-'));
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles examples/<name> against the sources and runs it; returns its stdout. */
async function runExample(name: string, args: string[] = []): Promise<string> {
  const outfile = join(dir, name);
  await build({
    absWorkingDir: root,
    entryPoints: [join('examples', name)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    plugins: [
      {
        name: 'dist-to-src',
        setup(b) {
          b.onResolve({ filter: /^treeline$/ }, () => ({ path: join(root, 'src', 'index.ts') }));
          b.onResolve({ filter: /^treeline\/kernels$/ }, () => ({ path: join(root, 'src', 'kernels.ts') }));
        },
      },
    ],
  });
  return execFileSync(process.execPath, [outfile, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 240_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('examples/', () => {
  it('issue 15: examples/mst-stats.mjs prints the four statistics of a clustered and a random catalogue', async () => {
    const out = await runExample('mst-stats.mjs');
    for (const catalogue of ['clustered (cosmology): 19999 edges', 'uniform random: 19999 edges'])
      expect(out).toContain(catalogue);
    for (const stat of ['degree d', 'edge length l', 'branch length b', 'branch shape s', 'nodes by degree']) {
      expect(out.split('\n').filter((l) => l.includes(stat))).toHaveLength(2);
    }
    // Clustering shows: the clustered catalogue's mean edge length is far below the random one's.
    const means = [...out.matchAll(/edge length l .*mean\s+([\d.]+)/g)].map((m) => Number(m[1]));
    expect(means).toHaveLength(2);
    expect(means[0]).toBeLessThan(means[1] / 2);
  }, 300_000);

  it('issue 21: examples/soft-clustering.mjs prints membership vectors; noise is less likely in a cluster', async () => {
    const out = await runExample('soft-clustering.mjs');
    const m = /(\d+) clusters; mean probability of being in some cluster: ([\d.]+) for .* ([\d.]+) for the/.exec(out);
    expect(m).not.toBeNull();
    expect(Number(m![2])).toBeGreaterThan(Number(m![3]));
    // A cluster's centre belongs to that cluster: its largest membership is in its own column.
    for (const c of [0, 1]) {
      const row = new RegExp(`centre of cluster ${c}\\s*: \\[([^\\]]+)\\]`).exec(out)![1].split(', ').map(Number);
      expect(row.indexOf(Math.max(...row))).toBe(c);
    }
  }, 300_000);

  it('issue 21: examples/plots.mjs writes the scatter, the MST, the condensed tree and the dendrogram as SVG and PNG', async () => {
    const folder = mkdtempSync(join(dir, 'plots-'));
    const out = await runExample('plots.mjs', [folder]);
    for (const name of ['scatter', 'mst', 'condensed-tree', 'dendrogram']) {
      expect(out).toMatch(new RegExp(`${name}\\.svg +\\d+ bytes of SVG, PNG \\d+ × \\d+`));
      expect(readFileSync(join(folder, `${name}.svg`), 'utf8').startsWith('<svg')).toBe(true);
      expect(readFileSync(join(folder, `${name}.png`)).length).toBeGreaterThan(10_000);
    }
    expect(out).toContain('2 clusters');
  }, 300_000);
});
