/**
 * The package as a user gets it (issue 8): `npm pack` of a fresh build, installed into a new project, imported by
 * name and run through its `treeline` bin.
 *
 * The build runs in a temporary copy of the sources (package.json, tsconfigs, src/, shaders/, scripts/, README,
 * LICENSE; node_modules symlinked), so the test checks the current sources without touching this checkout's dist/.
 *
 * Installing the tarball: `npm install --offline` takes the dependencies from npm's cache (there after `npm ci`), so
 * the test needs no network. Where that fails (a cleaned cache, an npm that cannot go offline) the test installs the
 * way npm lays a package out by hand: the tarball unpacked into node_modules/treeline, its bin linked into
 * node_modules/.bin, and each of its dependencies symlinked from this checkout's node_modules (their own
 * dependencies then resolve from there, since Node resolves from a symlink's real path). It says which way it took.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let work = '';
let tarball = '';
let entries: string[] = [];
let project = '';
let installedBy = '';

function run(cmd: string, args: string[], options: ExecFileSyncOptions = {}): string {
  return execFileSync(cmd, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false', NO_COLOR: '1' },
    ...options,
  }) as string;
}

/** Every shader under `base` as scripts/embed-shaders.mjs names it: its path there without `.wgsl`. */
function shaderNames(base: string, dir = base): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? shaderNames(base, join(dir, e.name))
      : e.name.endsWith('.wgsl')
        ? [
            relative(base, join(dir, e.name))
              .split(sep)
              .join('/')
              .replace(/\.wgsl$/, ''),
          ]
        : [],
  );
}

/** Builds in a copy of the sources and packs; returns the tarball's path. */
function buildAndPack(): string {
  const copy = join(work, 'source');
  mkdirSync(copy);
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE']) {
    cpSync(join(root, f), join(copy, f));
  }
  for (const d of ['src', 'shaders', 'scripts']) {
    cpSync(join(root, d), join(copy, d), { recursive: true, filter: (p) => !p.endsWith('shaders.generated.ts') });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  run(NPM, ['run', '-s', 'build'], { cwd: copy });
  // --ignore-scripts: the build just ran; prepack would run it again.
  run(NPM, ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: copy });
  return join(work, `${pkg.name}-${pkg.version}.tgz`);
}

/** Installs the tarball into a new project (see the file comment); returns how. */
function install(dir: string): string {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'treeline-consumer', private: true, type: 'module' }),
  );
  try {
    run(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball], {
      cwd: dir,
      timeout: 90_000,
    });
    return 'npm install --offline';
  } catch (e) {
    const why =
      String((e as { stderr?: string }).stderr ?? e)
        .split('\n')
        .find((l) => /ERR|error/i.test(l)) ?? '';
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    const target = join(dir, 'node_modules', pkg.name);
    mkdirSync(target, { recursive: true });
    run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
    for (const dep of Object.keys(pkg.dependencies)) {
      const link = join(dir, 'node_modules', dep);
      mkdirSync(join(link, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', dep), link, 'dir');
    }
    mkdirSync(join(dir, 'node_modules', '.bin'));
    const main = join(target, 'dist', 'cli', 'main.js');
    chmodSync(main, 0o755);
    symlinkSync(main, join(dir, 'node_modules', '.bin', 'treeline'));
    return `unpacked by hand, dependencies symlinked (npm install --offline failed: ${why.trim()})`;
  }
}

describe('the npm package (npm pack → install → import and run)', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'treeline-package-'));
    tarball = buildAndPack();
    entries = run('tar', ['-tzf', tarball])
      .split('\n')
      .filter(Boolean)
      .map((e) => e.replace(/^package\//, ''));
    project = join(work, 'consumer');
    mkdirSync(project);
    installedBy = install(project);
    console.log(`package test: ${relative(work, tarball)}, ${entries.length} files, installed by ${installedBy}`);
  }, 240_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the tarball holds dist/index.js, the types, the CLI, the browser bundle, LICENSE and README, and no sources', () => {
    for (const f of [
      'package.json',
      'LICENSE',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'dist/browser/treeline.js',
    ]) {
      expect(entries).toContain(f);
    }
    expect(entries.filter((e) => e.endsWith('.wgsl') || e.startsWith('src/') || e.startsWith('test/'))).toEqual([]);
    // Every public module comes with its declarations.
    const js = entries.filter((e) => e.startsWith('dist/') && !e.startsWith('dist/browser/') && e.endsWith('.js'));
    for (const f of js) expect(entries).toContain(f.replace(/\.js$/, '.d.ts'));
  });

  it('every shader is inside the package (Node modules and the browser bundle) and nothing reads files outside the CLI', () => {
    const unpacked = join(project, 'node_modules', pkg.name);
    const generated = readFileSync(join(unpacked, 'dist', 'gpu', 'shaders.generated.js'), 'utf8');
    const bundle = readFileSync(join(unpacked, 'dist', 'browser', 'treeline.js'), 'utf8');
    const unescaped = bundle.replace(/\\([`$\\"'])/g, '$1');
    // The shaders of the copy that was built (others may be editing this checkout's meanwhile).
    const shaders = join(work, 'source', 'shaders');
    const names = shaderNames(shaders);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      const source = readFileSync(join(shaders, `${name}.wgsl`), 'utf8');
      expect(generated.includes(`${JSON.stringify(name)}: ${JSON.stringify(source)}`), `${name} in dist/gpu`).toBe(
        true,
      );
      // esbuild re-quotes each source (template or quoted literal): look for its key and each line, unescaped.
      expect(bundle.includes(`${JSON.stringify(name)}:`), `${name} in dist/browser`).toBe(true);
      const missing = source.split('\n').filter((l) => l.trim() !== '' && !unescaped.includes(l));
      expect(missing, `${name}'s lines in dist/browser`).toEqual([]);
    }
    // The library (everything but the CLI, the file readers and the benchmarks) imports no node: module, so it
    // cannot read a .wgsl at run time; the browser bundle imports nothing at all.
    const nodeImport = /(?:from\s*|import\s*\(\s*)['"]node:/;
    const library = entries.filter((e) => /^dist\/.*\.js$/.test(e) && !/^dist\/(cli|io|bench)\//.test(e));
    const offending = library.filter((e) => nodeImport.test(readFileSync(join(unpacked, e), 'utf8')));
    expect(offending).toEqual([]);
    expect(/^\s*import\s.*from\s/m.test(bundle), 'an import in dist/browser/treeline.js').toBe(false);
  });

  it("import { emst, hdbscan } from 'treeline' runs in a new project (backend 'cpu')", () => {
    const script = `
      import { emst, hdbscan } from 'treeline';
      const points = new Float32Array([0, 0, 1, 0, 0, 2, 5, 5, 5, 6, 6, 5]);
      const tree = await emst(points, { dim: 2, backend: 'cpu' });
      const clusters = await hdbscan(points, { dim: 2, minClusterSize: 2, minSamples: 1, backend: 'cpu' });
      console.log(JSON.stringify({ sources: [...tree.sources], targets: [...tree.targets], weights: [...tree.weights],
        backend: tree.backend, labels: [...clusters.labels] }));
    `;
    writeFileSync(join(project, 'use.mjs'), script);
    const out = JSON.parse(run(process.execPath, ['use.mjs'], { cwd: project }));
    expect(out.backend).toBe('cpu');
    expect(out.sources).toHaveLength(5);
    // Edges in (weight, source, target) order: 0–1 (1), 3–4 (1), 3–5 (1), 0–2 (2), then a bridge between the groups.
    expect(out.sources.slice(0, 4)).toEqual([0, 3, 3, 0]);
    expect(out.targets.slice(0, 4)).toEqual([1, 4, 5, 2]);
    expect(out.weights.slice(0, 4)).toEqual([1, 1, 1, 2]);
    expect(new Set(out.labels.slice(0, 3)).size).toBe(1);
    expect(new Set(out.labels.slice(3)).size).toBe(1);
    expect(out.labels[0]).not.toBe(out.labels[3]);
  });

  it("issue 15: require('treeline') from a CommonJS project runs (Node ≥ 20.19 loads the ES module through require)", () => {
    // A CommonJS consumer beside the ES one: its own folder with a package.json of type commonjs, treeline resolved
    // from the project's node_modules. The "default" export condition is what require() matches; without it
    // Node reports ERR_PACKAGE_PATH_NOT_EXPORTED. The whole graph must be free of top-level await, or Node throws
    // ERR_REQUIRE_ASYNC_MODULE.
    const cjs = join(project, 'cjs');
    mkdirSync(cjs, { recursive: true });
    writeFileSync(
      join(cjs, 'package.json'),
      JSON.stringify({ name: 'treeline-cjs-consumer', private: true, type: 'commonjs' }),
    );
    const script = `
      const { emst, hdbscan, approximatePredict, hdbscanModel } = require('treeline');
      if (typeof approximatePredict !== 'function' || typeof hdbscanModel !== 'function') throw new Error('missing exports');
      const points = new Float32Array([0, 0, 1, 0, 0, 2, 5, 5, 5, 6, 6, 5]);
      (async () => {
        const tree = await emst(points, { dim: 2, backend: 'cpu' });
        const clusters = await hdbscan(points, { dim: 2, minClusterSize: 2, minSamples: 1, backend: 'cpu' });
        console.log(JSON.stringify({ weights: [...tree.weights], backend: tree.backend, labels: [...clusters.labels] }));
      })();
    `;
    writeFileSync(join(cjs, 'use.js'), script);
    const [major, minor] = process.versions.node.split('.').map(Number);
    if (major > 20 || (major === 20 && minor >= 19)) {
      const out = JSON.parse(run(process.execPath, ['use.js'], { cwd: cjs }));
      expect(out.backend).toBe('cpu');
      expect(out.weights.slice(0, 4)).toEqual([1, 1, 1, 2]);
      expect(out.labels[0]).not.toBe(out.labels[3]);
    } else {
      // Older Node: require() of an ES module fails with Node's own message, which says to use import().
      expect(() => run(process.execPath, ['use.js'], { cwd: cjs })).toThrow(/ERR_REQUIRE_ESM|import\(\)/);
    }
  });

  it("issue 16: 'treeline/kernels' resolves from ES and CommonJS projects, with its declarations, and is not in 'treeline'", () => {
    expect(entries).toContain('dist/kernels.js');
    expect(entries).toContain('dist/kernels.d.ts');
    writeFileSync(
      join(project, 'kernels.mjs'),
      `
      import { sortPairsCpu, UnionFind } from 'treeline/kernels';
      import * as api from 'treeline';
      const { keys, values } = sortPairsCpu(new Uint32Array([3, 1, 2]), new Uint32Array([0, 1, 2]), 1);
      console.log(JSON.stringify({ keys: [...keys], values: [...values], unionFind: typeof UnionFind,
        inApi: 'sortPairsCpu' in api }));
    `,
    );
    const esm = JSON.parse(run(process.execPath, ['kernels.mjs'], { cwd: project }));
    expect(esm).toEqual({ keys: [1, 2, 3], values: [1, 2, 0], unionFind: 'function', inApi: false });
    const cjs = join(project, 'cjs-kernels');
    mkdirSync(cjs, { recursive: true });
    writeFileSync(
      join(cjs, 'package.json'),
      JSON.stringify({ name: 'treeline-cjs-kernels', private: true, type: 'commonjs' }),
    );
    writeFileSync(join(cjs, 'use.js'), `console.log(typeof require('treeline/kernels').buildBvhCpu);`);
    const [major, minor] = process.versions.node.split('.').map(Number);
    if (major > 20 || (major === 20 && minor >= 19)) {
      expect(run(process.execPath, ['use.js'], { cwd: cjs }).trim()).toBe('function');
    } else {
      expect(() => run(process.execPath, ['use.js'], { cwd: cjs })).toThrow(/ERR_REQUIRE_ESM|import\(\)/);
    }
  });

  it('the installed treeline bin runs info and emst on a tiny CSV', () => {
    const bin = join(project, 'node_modules', '.bin', 'treeline');
    expect(existsSync(bin)).toBe(true);
    const info = run(bin, ['info', '--json'], { cwd: project, timeout: 60_000 });
    expect(['gpu', 'cpu']).toContain(JSON.parse(info).backend);
    writeFileSync(join(project, 'tiny.csv'), 'x,y\n0,0\n3,0\n0,4\n10,10\n');
    const csv = run(bin, ['emst', 'tiny.csv', '--backend', 'cpu'], { cwd: project });
    const rows = csv.trim().split('\n');
    expect(rows[0]).toBe('source,target,weight');
    expect(rows.slice(1).map((r) => r.split(',').slice(0, 2).join(','))).toEqual(['0,1', '0,2', '2,3']);
  });
});
