// Builds the browser bundle dist/browser/treeline.js: one ES module holding the whole public API (src/index.ts)
// with every WGSL shader inside (src/gpu/shaders.generated.ts, made by scripts/embed-shaders.mjs, which this
// runs first). In a browser or a worker the GPU comes from `navigator.gpu`; the Node-only parts — Dawn's `webgpu`
// package, the node:fs readers, the CLI — are not reachable from src/index.ts, and this script fails if any of
// them, or any node: built-in, ends up in the bundle.
//
//   node scripts/build-browser.mjs          (part of `npm run build`; alone: `npm run build:browser`)
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync(process.execPath, [fileURLToPath(new URL('./embed-shaders.mjs', import.meta.url))], { stdio: 'inherit' });

const { version } = (await import('../package.json', { with: { type: 'json' } })).default;

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/browser/treeline.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  sourcemap: true,
  // Keep the WGSL (its comments have – ≤ ² …) as written instead of \u escapes; ES modules are always UTF-8.
  charset: 'utf8',
  metafile: true,
  logLevel: 'warning',
  // Loaded through a computed import() in src/gpu/context.ts only where navigator.gpu is missing (Node); listed so
  // that a literal import of it anywhere would stay out of the bundle instead of failing the build.
  external: ['webgpu'],
  banner: { js: `// treeline ${version} browser bundle (ES module; WGSL shaders inside). MIT License.` },
});

// src/io/ is the bottom layer: its readers are Node-only, but the graph input types and the coordinate limit that
// every layer above shares (graph.types.ts, limits.ts) are plain TypeScript and belong in the bundle.
const ioShared = new Set(['src/io/graph.types.ts', 'src/io/limits.ts']);
const forbidden = Object.keys(result.metafile.inputs).filter(
  (f) =>
    f.startsWith('node:') ||
    /^src\/(cli|bench)\//.test(f) ||
    (/^src\/io\//.test(f) && !ioShared.has(f)) ||
    f.includes('node_modules/webgpu/'),
);
const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
const nodeImports = imports.filter((p) => p.startsWith('node:') || p === 'webgpu');
if (forbidden.length > 0 || nodeImports.length > 0) {
  console.error(`build-browser: Node-only code in the browser bundle: ${[...forbidden, ...nodeImports].join(', ')}`);
  process.exit(1);
}
const out = result.metafile.outputs['dist/browser/treeline.js'];
console.error(
  `build-browser: dist/browser/treeline.js (${(out.bytes / 1024).toFixed(0)} KiB, ${Object.keys(out.inputs).length} modules)`,
);
