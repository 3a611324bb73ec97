// Where a graph MSF's host time goes (H100 diagnosis): submit (encode) and done (GPU) per repetition, with and
// without the pass timer, one and two MSFs per submission, back to back.
import { readFile } from 'node:fs/promises';
import { createGpuContext } from '../dist/gpu/context.js';
import { Timer } from '../dist/gpu/timer.js';
import { parseEgr } from '../dist/io/graph.egr.js';
import { validateGraph } from '../dist/graph/validate.js';
import { uploadGraph } from '../dist/graph/gpugraph.js';
import { createGraphMsf } from '../dist/graph/eclmst.js';
const ctx = await createGpuContext({});
const g = validateGraph(parseEgr(new Uint8Array(await readFile(process.argv[2])), 'x.egr'));
const gg = uploadGraph(ctx, g);
const msf = await createGraphMsf(ctx, gg, {});
const timer = new Timer(ctx);
const f = (x) => x.toFixed(1);
for (const [name, timed, copies] of [['untimed x1', false, 1], ['timed x1', true, 1], ['untimed x2', false, 2], ['untimed x1', false, 1]]) {
  const rows = [];
  for (let i = 0; i < 8; i++) {
    timer.reset();
    const t0 = performance.now();
    await ctx.submit('probe', (rec) => { for (let c = 0; c < copies; c++) msf.encode(rec); }, { timer: timed ? timer : undefined });
    const t1 = performance.now();
    await ctx.onDone();
    const t2 = performance.now();
    let span = '';
    if (timed) { const e = await timer.read(); span = ` span ${f(e[e.length - 1].end - e[0].start)}`; }
    rows.push(`${f(t1 - t0)}+${f(t2 - t1)}${span}`);
  }
  console.log(`${name}: ${rows.join(', ')}`);
}
// Enqueue (no error-scope wait) then done; then a second onDone right after (polling latency).
{
  const rows = [];
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    const errs = ctx.enqueue('probe', (rec) => msf.encode(rec));
    const t1 = performance.now();
    await ctx.onDone();
    const t2 = performance.now();
    await errs;
    const t3 = performance.now();
    await ctx.onDone();
    const t4 = performance.now();
    rows.push(`${f(t1 - t0)}+${f(t2 - t1)}+${f(t3 - t2)}+${f(t4 - t3)}`);
  }
  console.log(`enqueue+done+errors+done2: ${rows.join(', ')}`);
}
// Only the first dispatches: init + populate (encode then drop the rest is not possible): a single clear.
{
  const rows = [];
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    await ctx.submit('probe', (rec) => rec.clear(msf.state));
    const t1 = performance.now();
    await ctx.onDone();
    rows.push(`${f(t1 - t0)}+${f(performance.now() - t1)}`);
  }
  console.log(`clear only: ${rows.join(', ')}`);
}
// Back to back: 10 submissions, then one wait.
const t0 = performance.now();
for (let i = 0; i < 10; i++) ctx.enqueue('probe', (rec) => msf.encode(rec));
await ctx.onDone();
console.log(`10 back to back: ${f((performance.now() - t0) / 10)} ms each`);
timer.destroy(); msf.destroy(); gg.destroy();
await ctx.destroy();
