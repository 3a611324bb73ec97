// Host round-trip latency probe (H100 diagnosis of the host gaps): empty submit + onSubmittedWorkDone, 4-byte
// read-backs, and a busy copy, each repeated; prints min / median / max in ms.
import { createGpuContext } from '../dist/gpu/context.js';
const ctx = await createGpuContext({});
const q = ctx.device.queue;
const stats = (xs) => { const s = [...xs].sort((a, b) => a - b); return `min ${s[0].toFixed(3)} med ${s[s.length >> 1].toFixed(3)} max ${s[s.length - 1].toFixed(3)}`; };
const buf = ctx.createBuffer('probe::a', 256 << 20);
const buf2 = ctx.createBuffer('probe::b', 256 << 20);
for (const [name, fn] of [
  ['empty submit + onDone', async () => { q.submit([]); await q.onSubmittedWorkDone(); }],
  ['read 4 bytes', async () => { await ctx.read(buf, 0, 4); }],
  ['copy 256 MiB + onDone', async () => { const e = ctx.device.createCommandEncoder(); e.copyBufferToBuffer(buf, 0, buf2, 0, 256 << 20); q.submit([e.finish()]); await q.onSubmittedWorkDone(); }],
  ['20 copies 256 MiB + onDone', async () => { const e = ctx.device.createCommandEncoder(); for (let i = 0; i < 20; i++) e.copyBufferToBuffer(buf, 0, buf2, 0, 256 << 20); q.submit([e.finish()]); await q.onSubmittedWorkDone(); }],
]) {
  const xs = [];
  for (let i = 0; i < 30; i++) { const t = performance.now(); await fn(); xs.push(performance.now() - t); }
  console.log(`${name}: ${stats(xs)}   first ${xs.slice(0, 5).map((x) => x.toFixed(2)).join(' ')}`);
}
buf.destroy(); buf2.destroy();
await ctx.destroy();
