// Issue 20 (session 19): the rows of a 3D float32 .npy file put in Morton order — to time the partitioned EMST's
// forests on partitions whose rows are spatially local (a partition's rows follow the input's order: random for
// `treeline generate`). The same point set, so the same total weight; the tree's ids differ. After `npm run build`:
//   node bench/morton-sort.mjs DIST IN.npy OUT.npy
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';

const [dist = 'dist', input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node bench/morton-sort.mjs DIST IN.npy OUT.npy');
  process.exit(2);
}
const at = (m) => new URL(`../${dist}/${m}`, import.meta.url).href;
const { mortonCodesCpu, sceneFrameCpu } = await import(at('bvh/morton.cpu.js'));
const { sortCodesCpu } = await import(at('bvh/sort.cpu.js'));
const { codeBits } = await import(at('bvh/layout.js'));

const PIECE = 1 << 30;
const t0 = performance.now();
const fd = openSync(input, 'r');
const size = fstatSync(fd).size;
const pre = Buffer.alloc(10);
readSync(fd, pre, 0, 10, 0);
if (pre.toString('latin1', 1, 6) !== 'NUMPY' || pre[6] !== 1) throw new Error(`${input}: not a version 1 .npy file`);
const start = 10 + pre.readUInt16LE(8);
const head = Buffer.alloc(start);
readSync(fd, head, 0, start, 0);
const text = head.toString('latin1', 10);
if (!text.includes("'<f4'") || !/\(\d+, 3\)/.test(text)) throw new Error(`${input}: expected float32 (n, 3), got ${text}`);
const bytes = size - start;
const n = bytes / 12;
const points = new Float32Array(3 * n);
const raw = new Uint8Array(points.buffer);
for (let off = 0; off < bytes; off += PIECE) readSync(fd, raw, off, Math.min(PIECE, bytes - off), start + off);
closeSync(fd);
const t1 = performance.now();
const codes = mortonCodesCpu(points, n, 3, sceneFrameCpu(points, n, 3));
const { order } = sortCodesCpu(codes, n, codeBits(3));
const t2 = performance.now();
const moved = new Float32Array(3 * n);
for (let i = 0; i < n; i++) {
  const r = 3 * order[i];
  moved[3 * i] = points[r];
  moved[3 * i + 1] = points[r + 1];
  moved[3 * i + 2] = points[r + 2];
}
const out = openSync(output, 'w');
writeSync(out, head, 0, start, 0);
const movedRaw = new Uint8Array(moved.buffer);
for (let off = 0; off < bytes; off += PIECE) writeSync(out, movedRaw, off, Math.min(PIECE, bytes - off), start + off);
closeSync(out);
console.log(
  `morton-sort: ${n} points, read ${((t1 - t0) / 1e3).toFixed(1)} s, codes + sort ${((t2 - t1) / 1e3).toFixed(1)} s, ` +
    `write ${((performance.now() - t2) / 1e3).toFixed(1)} s → ${output}`,
);
