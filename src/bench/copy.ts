/** The bandwidth baseline: a plain copy of n u32 (as vec4) through a WebGPU compute kernel. */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';

/** bench/copy.wgsl's bindings and uniform block, by their WGSL names. */
const COPY = {
  bindings: { u: 'uniform', src: 'read', dst: 'read_write' },
  uniforms: { count4: 'u32', p0: 'u32', p1: 'u32', p2: 'u32' },
} as const;

export async function benchCopy(ctx: GpuContext, n: number): Promise<BenchCase> {
  const n4 = Math.ceil(n / 4);
  const kernel = await ctx.kernel({
    label: 'bench::copy',
    shader: 'bench/copy',
    entry: 'main',
    ...COPY,
    workgroupSize: 256,
  });
  const src = ctx.createBuffer('bench::copySrc', n4 * 16);
  const dst = ctx.createBuffer('bench::copyDst', n4 * 16);
  const data = new Uint32Array(Math.min(n4 * 4, 1 << 20)).map((_, i) => (i * 2654435761) >>> 0);
  ctx.device.queue.writeBuffer(src, 0, data);
  return {
    encode: (rec) => rec.dispatch(kernel, { buffers: { src, dst }, uniforms: { count4: n4 }, threads: n4 }),
    check: async () => {
      const got = new Uint32Array(await ctx.read(dst, 0, data.byteLength));
      for (let i = 0; i < data.length; i++) {
        if (got[i] !== data[i]) throw new Error(`bench::copy: dst[${i}] = ${got[i]}, expected ${data[i]}`);
      }
    },
    destroy: () => {
      src.destroy();
      dst.destroy();
    },
  };
}
