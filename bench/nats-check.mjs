#!/usr/bin/env node
// Checks an EMST written by `treeline emst … --format npy -o DIR/` (issues 20 and 22: the partitioned runs on several
// GPUs, where no single GPU can compute a reference at 2·10^8 points and more): DIR/sources.npy, targets.npy and
// weights.npy hold n − 1 edges, every id below n, no cycle (a union-find over the edges: n − 1 edges without a cycle
// span the n points), weights finite, ≥ 0 and in the canonical order (weight, then min id, then max id, with
// source < target). Prints the edge count, the total weight (float64 sum), and one line `OK` or the first failure
// (exit 1).
//   node bench/nats-check.mjs DIR n
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A 1-D .npy of <u4 or <f4 (the only kinds `treeline emst` writes), read in pieces (files may pass 2 GiB). */
function readNpy(path) {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 4096));
    readSync(fd, head, 0, head.length, 0);
    if (head.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not a .npy file`);
    const major = head[6];
    const hlen = major === 1 ? head.readUInt16LE(8) : head.readUInt32LE(8);
    const start = (major === 1 ? 10 : 12) + hlen;
    const header = head.toString('latin1', major === 1 ? 10 : 12, start);
    const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
    const Type = descr === '<u4' ? Uint32Array : descr === '<f4' ? Float32Array : null;
    if (Type === null) throw new Error(`${path}: expected <u4 or <f4, got ${descr}`);
    const out = new Type((size - start) / 4);
    const bytes = new Uint8Array(out.buffer);
    for (let at = 0; at < bytes.length; ) {
      const got = readSync(fd, bytes, at, Math.min(1 << 30, bytes.length - at), start + at);
      if (got === 0) throw new Error(`${path}: ended early`);
      at += got;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

const [dir, nArg] = process.argv.slice(2);
if (!dir || !nArg) {
  console.error('usage: node bench/nats-check.mjs DIR n');
  process.exit(2);
}
const n = Number(nArg);
const t0 = performance.now();
const s = readNpy(join(dir, 'sources.npy'));
const t = readNpy(join(dir, 'targets.npy'));
const w = readNpy(join(dir, 'weights.npy'));
const m = w.length;
let total = 0;
let failure = null;
if (s.length !== m || t.length !== m) failure = `array lengths differ: ${s.length}, ${t.length}, ${m}`;
else if (m !== Math.max(n - 1, 0)) failure = `${m} edges for n = ${n} (expected ${Math.max(n - 1, 0)})`;
if (failure === null) {
  const parent = new Uint32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const root = (i) => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (let e = 0; e < m && failure === null; e++) {
    const a = s[e];
    const b = t[e];
    if (!(a < b && b < n)) failure = `edge ${e} is (${a}, ${b}): expected source < target < n`;
    else if (!(w[e] >= 0 && Number.isFinite(w[e]))) failure = `edge ${e} has weight ${w[e]}`;
    else if (e > 0 && !(w[e - 1] < w[e] || (w[e - 1] === w[e] && (s[e - 1] < a || (s[e - 1] === a && t[e - 1] < b)))))
      failure = `edges ${e - 1} and ${e} are not in the canonical order`;
    else {
      const x = root(a);
      const y = root(b);
      if (x === y) failure = `edge ${e} (${a}, ${b}) closes a cycle`;
      else if (x < y) parent[y] = x;
      else parent[x] = y;
    }
    total += w[e];
  }
}
console.log(
  `${dir}: ${m} edges, total weight ${total.toPrecision(12)}, checked in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
console.log(failure === null ? 'OK: n − 1 edges, no cycle, canonical order' : `FAILED: ${failure}`);
process.exit(failure === null ? 0 : 1);
