/**
 * The benchmark suites `treeline bench` knows: each makes a BenchCase for a size and derives its rates from the
 * GPU time. Sizes default to the ones the issues' acceptance figures name.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { benchCopy } from './copy.js';

export interface BenchSuite {
  description: string;
  defaultSizes: number[];
  make: (ctx: GpuContext, n: number) => Promise<BenchCase>;
  rates: (n: number, gpuMs: number) => Record<string, number>;
}

const perSecond = (count: number, ms: number) => count / (ms / 1e3);

export const suites: Record<string, BenchSuite> = {
  copy: {
    description: 'plain u32 copy (vec4 per thread): the bandwidth baseline',
    defaultSizes: [1 << 28],
    make: benchCopy,
    rates: (n, ms) => ({ 'Gelem/s': perSecond(n, ms) / 1e9, 'TB/s (read+write)': perSecond(8 * n, ms) / 1e12 }),
  },
};
