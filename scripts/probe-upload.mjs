// H100 diagnosis (issue 5): host → GPU upload of the points (emst::upload, 80–190 ms for 120 MB at 10^7 3D points).
// Times, per repetition, until the GPU is done: mappedAtCreation + set (what ctx.upload does), one writeBuffer, and
// writeBuffer in chunks of 4, 16 and 64 MiB. Usage: node scripts/probe-upload.mjs [MiB, default 120]
import { createGpuContext } from '../dist/gpu/context.js';
const ctx = await createGpuContext({});
const d = ctx.device;
const bytes = Number(process.argv[2] ?? 120) << 20;
const data = new Float32Array(bytes / 4);
for (let i = 0; i < data.length; i++) data[i] = i * 0.5;
const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
const f = (x) => x.toFixed(1);
async function run(name, up) {
  const rows = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    const buf = up();
    const t1 = performance.now();
    await d.queue.onSubmittedWorkDone();
    rows.push(`${f(t1 - t0)}+${f(performance.now() - t1)}`);
    buf.destroy();
  }
  console.log(`${name}: ${rows.join(' ')} (host + wait, ms)`);
}
const mapped = () => {
  const buf = d.createBuffer({ size: bytes, usage, mappedAtCreation: true });
  new Uint8Array(buf.getMappedRange()).set(new Uint8Array(data.buffer));
  buf.unmap();
  return buf;
};
const written = (chunk) => () => {
  const buf = d.createBuffer({ size: bytes, usage });
  for (let o = 0; o < bytes; o += chunk) d.queue.writeBuffer(buf, o, data.buffer, o, Math.min(chunk, bytes - o));
  return buf;
};
for (let k = 0; k < 2; k++) {
  await run('mappedAtCreation', mapped);
  await run('writeBuffer whole', written(bytes));
  for (const mib of [4, 16, 64]) await run(`writeBuffer ${mib} MiB chunks`, written(mib << 20));
}
await ctx.destroy();
