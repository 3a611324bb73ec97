/**
 * Benchmark case: one exclusive scan of n seeded u32, GPU-resident (input and output allocated once, out of
 * place, so every repetition does the same work). `bytesMoved` is 8n — one read and one write of each element,
 * what a plain copy moves — so bytesMoved / time compares directly with the copy bandwidth (the issue's
 * target is stated as a fraction of the copy's element rate). reduce-then-scan really moves 12n bytes (the
 * default); `{ strategy: 'lookback' }` moves 8n plus its look-back traffic. Options pass to createScanner().
 */
import type { GpuContext } from '../gpu/context.js';
import type { Recorder } from '../gpu/recorder.js';
import { createScanner, type ScannerOptions } from '../primitives/scan.js';
import { scanU32Cpu } from '../primitives/scan.cpu.js';

/** `n` seeded u32 (xorshift32 from `seed`). */
export function seededU32(n: number, seed: number): Uint32Array {
  const out = new Uint32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
  return out;
}

export async function benchScan(
  ctx: GpuContext,
  n: number,
  options: ScannerOptions = {},
): Promise<{ encode: (rec: Recorder) => void; check: () => Promise<void>; bytesMoved: number; destroy: () => void }> {
  // TREELINE_SCAN_OPTIONS (JSON) overrides the shape in benchmark sweeps.
  const env = typeof process !== 'undefined' ? process.env.TREELINE_SCAN_OPTIONS : undefined;
  const scanner = await createScanner(ctx, n, env ? { ...options, ...JSON.parse(env) } : options);
  const data = seededU32(n, 0x5ca1ab1e);
  const input = ctx.upload('bench::scanInput', data);
  const output = ctx.createBuffer('bench::scanOutput', n * 4);
  return {
    encode: (rec) => scanner.encode(rec, input, output, n, 'exclusive'),
    check: async () => {
      const got = new Uint32Array(await ctx.read(output, 0, n * 4));
      const want = scanU32Cpu(data, 'exclusive');
      for (let i = 0; i < n; i++) {
        if (got[i] !== want[i]) throw new Error(`bench::scan: output[${i}] = ${got[i]}, expected ${want[i]} (n=${n})`);
      }
    },
    bytesMoved: 8 * n,
    destroy: () => {
      input.destroy();
      output.destroy();
      scanner.destroy();
    },
  };
}
