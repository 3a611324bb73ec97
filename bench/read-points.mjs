// Issue 19 (session 11, M5): the streaming point readers (src/io/points.stream.ts) against the whole-buffer path they
// replaced (readWholeFile + parseNpy + npyToPoints), on .npy files this script writes: float32 3D at n points (above
// 3.6·10^8 the file exceeds 4 GiB, which the old path cannot hold in one Uint8Array) and float64 3D at n/4 (the
// converting path). Each read runs in a child process of its own, so that its peak RSS (maxRSS) is its own; each
// prints one line: what, n, file GB, read ms and GB/s, requireFinite ms, peak RSS GiB (or the error). The files are
// deleted at the end.
//   node bench/read-points.mjs [dist] [n] [dir]      defaults dist, 4·10^8, the OS temp folder
// On the H100 host: bash .gpu/run.sh node bench/read-points.mjs dist-h100 400000000 /tmp
import { spawnSync } from 'node:child_process';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [dist = 'dist', nText = '4e8', dir = tmpdir(), mode, label, file, inFlight] = process.argv.slice(2);
const at = (m) => new URL(`../${dist}/${m}`, import.meta.url).href;

if (mode === '--read') {
  const { readNpyFile } = await import(at('io/points.stream.js'));
  const { readWholeFile, requireFinite } = await import(at('io/points.js'));
  const { npyToPoints, parseNpy } = await import(at('io/npy.js'));
  const t0 = performance.now();
  let line;
  try {
    const t =
      label === 'old'
        ? npyToPoints(parseNpy(await readWholeFile(file), file), file)
        : await readNpyFile(file, undefined, { inFlight: Number(inFlight) });
    const t1 = performance.now();
    requireFinite(t, file);
    const t2 = performance.now();
    line = `n=${t.n} dim=${t.dim} read=${(t1 - t0).toFixed(0)} ms finite=${(t2 - t1).toFixed(0)} ms`;
  } catch (e) {
    line = `error after ${(performance.now() - t0).toFixed(0)} ms: ${e.message}`;
  }
  console.log(`${line} maxRSS=${(process.resourceUsage().maxRSS / 2 ** 20).toFixed(2)} GiB`);
  process.exit(0);
}

const { npyChunks } = await import(at('io/npy.js'));
const n = Number(nText);
const { statSync } = await import('node:fs');

async function writeFile(path, data, shape) {
  const fh = await open(path, 'w');
  try {
    for (const c of npyChunks(data, shape)) await fh.write(c);
  } finally {
    await fh.close();
  }
}

/** n × 3 values in [-0.5, 0.5) (a golden-ratio sequence: cheap, and no two neighbours equal). */
function values(Type, count) {
  const a = new Type(count * 3);
  for (let i = 0; i < a.length; i++) a[i] = ((i * 0.6180339887498949) % 1) - 0.5;
  return a;
}

const files = [];
async function make(name, Type, count) {
  const path = join(dir, `treeline-read-points-${process.pid}-${name}.npy`);
  const t0 = performance.now();
  await writeFile(path, values(Type, count), [count, 3]);
  files.push(path);
  const gb = statSync(path).size / 1e9;
  console.log(`read-points: wrote ${name} (${count} × 3) ${gb.toFixed(2)} GB in ${(performance.now() - t0).toFixed(0)} ms`);
  return { path, gb };
}

function run(what, f, label, inFlight = 4) {
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [script, dist, nText, dir, '--read', label, f.path, String(inFlight)], {
    encoding: 'utf8',
  });
  const out = (r.stdout + r.stderr).trim();
  const ms = /read=(\d+) ms/.exec(out);
  const rate = ms ? ` (${(f.gb / (Number(ms[1]) / 1000)).toFixed(2)} GB/s)` : '';
  console.log(`read-points: ${what} ${f.gb.toFixed(2)} GB: ${out}${rate}`);
}

try {
  const f32 = await make('f32', Float32Array, n);
  run('f32 stream inFlight=1', f32, 'new', 1);
  run('f32 stream inFlight=4', f32, 'new', 4);
  run('f32 stream inFlight=1', f32, 'new', 1);
  run('f32 stream inFlight=4', f32, 'new', 4);
  run('f32 old whole buffer', f32, 'old');
  const f64 = await make('f64', Float64Array, Math.floor(n / 4));
  run('f64 stream pieces', f64, 'new');
  run('f64 old whole buffer', f64, 'old');
} finally {
  for (const f of files) await rm(f, { force: true });
}
