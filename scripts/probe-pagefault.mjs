#!/usr/bin/env node
/**
 * What a first touch of fresh host memory costs (page faults) against a second touch, per 4 KiB page, for a
 * 600 MB typed array allocated three times: run it plain and with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc
 * ≥ 2.35 then asks for transparent huge pages on malloc's large mappings, which Node's ArrayBuffers use). Also
 * times random reads over the array (TLB misses). Issue 5's host-bound clustering.
 */
import { readFileSync } from 'node:fs';

const read = (p) => {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return '(unreadable)';
  }
};
console.log(
  `THP enabled: ${read('/sys/kernel/mm/transparent_hugepage/enabled')}; defrag: ${read('/sys/kernel/mm/transparent_hugepage/defrag')}`,
);
console.log(`GLIBC_TUNABLES=${process.env.GLIBC_TUNABLES ?? ''}`);
const N = 150e6; // 600 MB of u32
let sink = 0;
for (let rep = 0; rep < 3; rep++) {
  const t0 = performance.now();
  const a = new Uint32Array(N);
  const t1 = performance.now();
  for (let i = 0; i < N; i += 1024) a[i] = i;
  const t2 = performance.now();
  for (let i = 0; i < N; i += 1024) a[i] += 1;
  const t3 = performance.now();
  let x = 12345;
  for (let i = 0; i < 1e7; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    sink ^= a[x % N];
  }
  const t4 = performance.now();
  const pages = N / 1024;
  console.log(
    `alloc ${(t1 - t0).toFixed(1)} ms, first touch ${(t2 - t1).toFixed(1)} ms (${(((t2 - t1) * 1000) / pages).toFixed(2)} µs/page), ` +
      `second ${(t3 - t2).toFixed(1)} ms, 10^7 random reads ${(t4 - t3).toFixed(1)} ms`,
  );
}
const huge = read('/proc/meminfo')
  .split('\n')
  .find((l) => l.startsWith('AnonHugePages'));
console.log(`${huge}; sink ${sink & 1}`);
