/**
 * Soft clustering end to end (issue 21): allPointsMembershipVectors of a fitted model of 3D blobs, its distances to
 * the exemplars on the GPU (upload, shaders/cluster/exemplar_distance.wgsl, read-back, the host's combination) —
 * timed on the host, since most of the call runs there; the figure is the GPU backend's. The notes give the CPU
 * backend's time for the same call (one run, after the GPU's repetitions) and the largest difference between the
 * two, up to CPU_CHECK_MAX_POINTS points: above, the CPU call (O(n · E · dim), E exemplars) would take minutes, so
 * the check compares only the rows of a sample, their nearest-exemplar distances (GPU table against the CPU twin's
 * float64 distances) and the GPU rows' sums (each equals the point's probability of being in some cluster, ≤ 1).
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { generate } from '../datasets/generate.js';
import { hdbscan, hdbscanModel } from '../hdbscan.js';
import { allPointsMembershipVectors } from '../cluster/membership.js';
import type { HdbscanModel } from '../cluster/model.js';
import { exemplarDistances } from '../cluster/exemplars.distance.js';
import { NO_EXEMPLAR, packExemplars, nearestExemplarDistances } from '../cluster/exemplars.distance.cpu.js';
import { exemplars as clusterExemplars } from '../cluster/exemplars.js';

/** The largest n whose CPU-backend call the check runs whole. */
const CPU_CHECK_MAX_POINTS = 1 << 18;
/** Rows whose exemplar distances are compared above it. */
const SAMPLE_ROWS = 4096;

export async function benchMembership(ctx: GpuContext, n: number, dim = 3): Promise<BenchCase> {
  const points = generate('blobs', { n, dim, seed: 1, clusters: 10, noise: 0.1 });
  const fit = await hdbscan(points, { dim, minClusterSize: 15, backend: 'gpu', gpu: ctx });
  const model: HdbscanModel = await hdbscanModel(points, dim, fit);
  const k = model.selectedClusters.length;
  let gpu: Float64Array | null = null;
  let cpuMs = -1;
  let worst = 0;
  let exemplarCount = 0;
  return {
    run: async () => {
      gpu = await allPointsMembershipVectors(model, { backend: 'gpu', gpu: ctx });
    },
    check: async () => {
      if (!gpu || gpu.length !== n * k) throw new Error(`bench::membership: ${gpu?.length ?? 0} values for n=${n}, k=${k}`);
      for (let x = 0; x < n; x++) {
        let sum = 0;
        for (let j = 0; j < k; j++) sum += gpu[x * k + j];
        if (!(sum <= 1 + 1e-9)) throw new Error(`bench::membership: row ${x} sums to ${sum}`);
      }
      if (n <= CPU_CHECK_MAX_POINTS) {
        const t0 = performance.now();
        const cpu = allPointsMembershipVectors(model);
        cpuMs = performance.now() - t0;
        for (let i = 0; i < cpu.length; i++) worst = Math.max(worst, Math.abs(cpu[i] - gpu[i]));
      } else {
        // The distance part on a sample of rows: the GPU's f32 squared distances against the float64 ones.
        const sets = clusterExemplars(model.condensedTree, model.selectedClusters).map((ids) => {
          const c = new Float64Array(ids.length * dim);
          ids.forEach((p, r) => {
            for (let d = 0; d < dim; d++) c[r * dim + d] = model.points[p * dim + d];
          });
          return c;
        });
        const stride = Math.max(1, Math.floor(n / SAMPLE_ROWS));
        const rows = new Float32Array(Math.ceil(n / stride) * dim);
        for (let x = 0, r = 0; x < n; x += stride, r++) rows.set(model.points.subarray(x * dim, (x + 1) * dim), r * dim);
        const table = await exemplarDistances(ctx, rows, dim, packExemplars(sets, dim));
        const exact = new Float64Array(k);
        for (let r = 0; r < rows.length / dim; r++) {
          nearestExemplarDistances(sets, rows, r * dim, dim, exact);
          for (let j = 0; j < k; j++) {
            const d2 = table[r * k + j];
            const d = d2 === NO_EXEMPLAR ? Number.MAX_VALUE : Math.sqrt(d2);
            worst = Math.max(worst, Math.abs(d - exact[j]) / Math.max(1, exact[j]));
          }
        }
      }
      exemplarCount = model.selectedClusters.length === 0 ? 0 : countExemplars(model);
      if (!(worst <= 1e-6)) throw new Error(`bench::membership: GPU and CPU differ by ${worst}`);
    },
    notes: () =>
      `k = ${k} clusters, ${exemplarCount} exemplars; ` +
      (cpuMs >= 0
        ? `CPU backend ${cpuMs.toFixed(0)} ms (one run); largest |GPU − CPU| ${worst.toExponential(1)}`
        : `CPU backend not run (n > ${CPU_CHECK_MAX_POINTS}); largest relative exemplar-distance difference on ` +
          `${SAMPLE_ROWS} sampled rows ${worst.toExponential(1)}`),
    destroy: () => {},
  };
}

function countExemplars(model: HdbscanModel): number {
  return clusterExemplars(model.condensedTree, model.selectedClusters).reduce((s, e) => s + e.length, 0);
}
