/**
 * Soft clustering end to end (issue 21): allPointsMembershipVectors of a fitted model of 3D blobs, its distances to
 * the exemplars on the GPU (upload, shaders/cluster/exemplar_distance.wgsl, read-back, the host's combination) —
 * timed on the host, since most of the call runs there; the figure is the GPU backend's, and the notes give the CPU
 * backend's time for the same call (one run, after the GPU's repetitions) and the largest difference between them.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { generate } from '../datasets/generate.js';
import { hdbscan, hdbscanModel } from '../hdbscan.js';
import { allPointsMembershipVectors } from '../cluster/membership.js';
import type { HdbscanModel } from '../cluster/model.js';

export async function benchMembership(ctx: GpuContext, n: number, dim = 3): Promise<BenchCase> {
  const points = generate('blobs', { n, dim, seed: 1, clusters: 10, noise: 0.1 });
  const fit = await hdbscan(points, { dim, minClusterSize: 15, backend: 'gpu', gpu: ctx });
  const model: HdbscanModel = await hdbscanModel(points, dim, fit);
  const k = model.selectedClusters.length;
  let gpu: Float64Array | null = null;
  let cpuMs = 0;
  let worst = 0;
  return {
    run: async () => {
      gpu = await allPointsMembershipVectors(model, { backend: 'gpu', gpu: ctx });
    },
    check: async () => {
      const t0 = performance.now();
      const cpu = allPointsMembershipVectors(model);
      cpuMs = performance.now() - t0;
      if (!gpu || gpu.length !== n * k) throw new Error(`bench::membership: ${gpu?.length ?? 0} values for n=${n}, k=${k}`);
      for (let i = 0; i < cpu.length; i++) worst = Math.max(worst, Math.abs(cpu[i] - gpu[i]));
      if (!(worst <= 1e-6)) throw new Error(`bench::membership: GPU and CPU memberships differ by ${worst}`);
    },
    notes: () => `k = ${k} clusters; CPU backend ${cpuMs.toFixed(0)} ms (one run); largest |GPU − CPU| ${worst.toExponential(1)}`,
    destroy: () => {},
  };
}
