// H100 diagnosis: host wait after submitting K trivial compute dispatches (shared pass / a pass each / indirect),
// against a copy. Prints per-repetition submit+done ms.
import { createGpuContext } from '../dist/gpu/context.js';
const ctx = await createGpuContext({});
const d = ctx.device;
const mod = d.createShaderModule({
  code: `@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3u) { if (g.x < arrayLength(&a)) { a[g.x] = a[g.x] * 3u + 1u; } }`,
});
const pipe = d.createComputePipeline({ layout: 'auto', compute: { module: mod, entryPoint: 'main' } });
const buf = d.createBuffer({
  size: 4 << 20,
  usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
});
const buf2 = d.createBuffer({ size: 4 << 20, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
const ind = d.createBuffer({ size: 12, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
d.queue.writeBuffer(ind, 0, new Uint32Array([4096, 1, 1]));
const bg = d.createBindGroup({
  layout: pipe.getBindGroupLayout(0),
  entries: [{ binding: 0, resource: { buffer: buf } }],
});
const f = (x) => x.toFixed(1);
async function run(name, enc) {
  const rows = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    const e = d.createCommandEncoder();
    enc(e);
    d.queue.submit([e.finish()]);
    const t1 = performance.now();
    await d.queue.onSubmittedWorkDone();
    rows.push(`${f(t1 - t0)}+${f(performance.now() - t1)}`);
  }
  console.log(`${name}: ${rows.join(' ')}`);
}
for (const K of [1, 10, 100]) {
  await run(`K=${K} shared pass`, (e) => {
    const p = e.beginComputePass();
    p.setPipeline(pipe);
    p.setBindGroup(0, bg);
    for (let k = 0; k < K; k++) p.dispatchWorkgroups(4096);
    p.end();
  });
  await run(`K=${K} pass each`, (e) => {
    for (let k = 0; k < K; k++) {
      const p = e.beginComputePass();
      p.setPipeline(pipe);
      p.setBindGroup(0, bg);
      p.dispatchWorkgroups(4096);
      p.end();
    }
  });
  await run(`K=${K} indirect`, (e) => {
    const p = e.beginComputePass();
    p.setPipeline(pipe);
    p.setBindGroup(0, bg);
    for (let k = 0; k < K; k++) p.dispatchWorkgroupsIndirect(ind, 0);
    p.end();
  });
}
await run('copy x10', (e) => {
  for (let k = 0; k < 10; k++) e.copyBufferToBuffer(buf, 0, buf2, 0, 4 << 20);
});
await run('K=100 pass each (again)', (e) => {
  for (let k = 0; k < 100; k++) {
    const p = e.beginComputePass();
    p.setPipeline(pipe);
    p.setBindGroup(0, bg);
    p.dispatchWorkgroups(4096);
    p.end();
  }
});
buf.destroy();
buf2.destroy();
ind.destroy();
await ctx.destroy();
