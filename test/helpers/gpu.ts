/**
 * GPU test contexts. Each GPU test file runs its cases on two devices: one with every optional feature the
 * adapter has, one with none (so every fallback path runs). Without an adapter the cases skip, unless
 * TREELINE_REQUIRE_GPU=1 (CI), where the missing adapter is an error.
 */
import { createGpuContext, type GpuContext, type GpuContextOptions } from '../../src/gpu/index.js';
import { GpuUnavailableError } from '../../src/errors.js';

export const requireGpu = process.env.TREELINE_REQUIRE_GPU === '1';

export interface GpuVariant {
  name: string;
  ctx: GpuContext;
}

/** Creates a context, or null when no adapter exists and the GPU is not required. */
export async function tryGpuContext(options: GpuContextOptions = {}): Promise<GpuContext | null> {
  try {
    return await createGpuContext(options);
  } catch (e) {
    if (e instanceof GpuUnavailableError && !requireGpu) return null;
    throw e;
  }
}

/** The two variants (all features, none), or [] when there is no adapter and the GPU is not required. */
export async function gpuVariants(extra: GpuContextOptions = {}): Promise<GpuVariant[]> {
  const all = await tryGpuContext({ ...extra, features: 'all' });
  if (!all) return [];
  const none = await tryGpuContext({ ...extra, features: 'none' });
  return [
    { name: `features: ${featureList(all)}`, ctx: all },
    { name: 'features: none', ctx: none! },
  ];
}

function featureList(ctx: GpuContext): string {
  const on = Object.entries(ctx.features)
    .filter(([, v]) => v)
    .map(([k]) => k);
  return on.length ? on.join('+') : 'none available';
}

/** Destroys the variants' contexts and waits for Dawn's teardown (call in afterAll, returning the promise). */
export async function destroyVariants(variants: GpuVariant[]): Promise<void> {
  await Promise.all(variants.map((v) => v.ctx.destroy()));
}
