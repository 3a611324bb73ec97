/**
 * Compiles, into a context's pipeline cache, the kernels of hdbscan()'s GPU-resident clustering of n points
 * (resident.ts: the canonical order, the dendrogram, the condenser) and frees what their creation allocated — which
 * the context's buffer pool then hands to the call itself (gpu/buffers.ts). What `treeline hdbscan` starts while it
 * still reads the point file (cli/gpuahead.ts), beside emst's warm-up (emst/pipeline.ts warmEmstPipelines). Errors
 * are left to the call, which creates the same objects again and reports them.
 */
import { createCanonicalSort } from '../emst/canonical.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuCondenser } from './condense.rows.js';
import { GpuDendrogram } from './dendrogram.js';
import { residentApplies } from './resident.js';

export async function warmClusterPipelines(ctx: GpuContext, n: number, minClusterSize: number): Promise<void> {
  if (n < 2 || !residentApplies(n, minClusterSize)) return;
  try {
    const [, condenser] = await Promise.all([createCanonicalSort(ctx), GpuCondenser.create(ctx, n, minClusterSize)]);
    try {
      const dendrogram = await GpuDendrogram.create(ctx, n, { sorter: condenser.sorter });
      dendrogram.destroy();
    } finally {
      condenser.destroy();
    }
  } catch {
    // The call itself reports what failed.
  }
}
