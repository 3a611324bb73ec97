// Issue 19 (big inputs end to end): checks the edges `treeline emst … --format npy -o DIR` wrote for n points — the
// three files' types and lengths (n − 1 each), every end below n, no cycle (so a spanning tree), and their total
// weight (float64) — with the EMST bench's threaded union-find (src/bench/check.threads.ts). The files are read into
// SharedArrayBuffers in pieces (a file above 2 GiB does not fit one read). Prints one line; exits 1 on a failure.
//   node bench/check-edges.mjs DIST DIR N        e.g. node bench/check-edges.mjs dist /tmp/edges 100000
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

const [dist = 'dist', dir, nText] = process.argv.slice(2);
if (!dir || !nText) {
  console.error('usage: node bench/check-edges.mjs DIST DIR N');
  process.exit(2);
}
const n = Number(nText);
const at = (m) => new URL(`../${dist}/${m}`, import.meta.url).href;
const { checkSpanningTree } = await import(at('bench/check.threads.js'));
const { resolveThreads } = await import(at('host/threads.js'));

/** A 1-D .npy file of `descr` ('<u4', '<f4') into a shared typed array. */
function readNpy(file, descr, Type) {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const pre = Buffer.alloc(10);
    readSync(fd, pre, 0, 10, 0);
    if (pre.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
    const major = pre[6];
    const headerLength = major === 1 ? pre.readUInt16LE(8) : pre.readUInt32LE(8);
    const start = (major === 1 ? 10 : 12) + headerLength;
    const head = Buffer.alloc(start);
    readSync(fd, head, 0, start, 0);
    const header = head.toString('latin1', major === 1 ? 10 : 12);
    const m = /'descr':\s*'([^']+)'.*'shape':\s*\((\d+),?\)/.exec(header);
    if (!m || m[1] !== descr) throw new Error(`${file}: expected a 1-D ${descr} array, header ${header.trim()}`);
    const count = Number(m[2]);
    const bytes = count * 4;
    if (size !== start + bytes) throw new Error(`${file}: ${size} bytes, expected ${start + bytes}`);
    const out = new Type(new SharedArrayBuffer(bytes), 0, count);
    for (let done = 0; done < bytes; ) {
      const piece = new Uint8Array(out.buffer, done, Math.min(1 << 30, bytes - done));
      const got = readSync(fd, piece, 0, piece.length, start + done);
      if (got <= 0) throw new Error(`${file}: short read at byte ${start + done}`);
      done += got;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

const t0 = performance.now();
try {
  const edges = {
    sources: readNpy(join(dir, 'sources.npy'), '<u4', Uint32Array),
    targets: readNpy(join(dir, 'targets.npy'), '<u4', Uint32Array),
    weights: readNpy(join(dir, 'weights.npy'), '<f4', Float32Array),
  };
  const t1 = performance.now();
  const threads = await resolveThreads(undefined, n, 16);
  const total = await checkSpanningTree(n, edges, threads);
  const t2 = performance.now();
  console.log(
    `check-edges: ${edges.sources.length} edges for n = ${n}, every end < n, no cycle (a spanning tree); total weight ` +
      `${total.toPrecision(10)}; read ${((t1 - t0) / 1000).toFixed(1)} s, union-find ${((t2 - t1) / 1000).toFixed(1)} s ` +
      `on ${threads} threads`,
  );
} catch (e) {
  console.log(`check-edges: FAILED: ${e?.message ?? e}`);
  process.exit(1);
}
