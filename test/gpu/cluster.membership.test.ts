/**
 * allPointsMembershipVectors on the GPU (issue 21): the exemplar-distance kernel (shaders/cluster/
 * exemplar_distance.wgsl) gives the same f32 table as its CPU twin (exemplarDistanceTable), and the memberships
 * built on it stay within 1e-6 of hdbscan 0.8.43's (test/golden/hdbscan-extra), with optional features on and off.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allPointsMembershipVectors } from '../../src/cluster/membership.js';
import { exemplars } from '../../src/cluster/index.js';
import { exemplarDistanceTable, packExemplars } from '../../src/cluster/exemplars.distance.cpu.js';
import { createExemplarDistanceKernel, exemplarDistances } from '../../src/cluster/exemplars.distance.js';
import type { HdbscanModel } from '../../src/cluster/model.js';
import { worstAbs } from '../helpers/golden.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';
import { extraModel, readExtra, type ExtraCase, type ExtraEntry } from '../helpers/softGolden.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const index = readExtra<ExtraEntry[]>('index.json');

/** The model's exemplar sets in column order, as allPointsMembershipVectors packs them. */
function modelExemplars(model: HdbscanModel, clusterIds: number[]) {
  const idx = exemplars(model.condensedTree, Uint32Array.from(clusterIds));
  const cols = idx.map((ids) => {
    const c = new Float32Array(ids.length * model.dim);
    ids.forEach((p, e) => c.set(model.points.subarray(p * model.dim, (p + 1) * model.dim), e * model.dim));
    return c;
  });
  return packExemplars(cols, model.dim);
}

for (const { name, ctx } of variants) {
  describe(`allPointsMembershipVectors on the GPU (${name})`, () => {
    for (const e of index) {
      const g = readExtra<ExtraCase>(e.case, `${e.params}.json`);

      it(`${e.case}/${e.params}: the GPU table equals its CPU twin's bits`, async () => {
        const model = extraModel(e, g, false);
        const sets = modelExemplars(model, g.selected_clusters);
        const gpu = await exemplarDistances(ctx, model.points, model.dim, sets);
        const cpu = exemplarDistanceTable(model.points, model.dim, sets);
        expect(gpu.length).toBe(e.n * g.n_clusters);
        expect(worstAbs(gpu, cpu)).toBe(0);
      });

      it(`${e.case}/${e.params}: memberships within 1e-6 of hdbscan's and of the CPU backend`, async () => {
        const model = extraModel(e, g, false);
        const v = await allPointsMembershipVectors(model, { backend: 'gpu', gpu: ctx });
        expect(v.length).toBe(e.n * g.n_clusters);
        expect(worstAbs(v, g.all_points_membership.flat())).toBeLessThanOrEqual(1e-6);
        expect(worstAbs(v, allPointsMembershipVectors(model))).toBeLessThanOrEqual(1e-6);
      });
    }

    it('exemplarDistances processes points in blocks when the table exceeds maxStorageBufferBindingSize', async () => {
      const random = mulberry32(21);
      const dim = 3;
      const n = 5000;
      const points = Float32Array.from({ length: n * dim }, () => random() * 10);
      const cols = [7, 1, 30].map((m) => Float32Array.from({ length: m * dim }, () => random() * 10));
      const sets = packExemplars(cols, dim);
      const want = exemplarDistanceTable(points, dim, sets);
      // A context whose binding limit holds 1000 rows of 3 columns: five blocks.
      const small = Object.create(ctx, {
        limits: { get: () => ({ ...ctx.limits, maxStorageBufferBindingSize: 1000 * 3 * 4 }) },
      }) as typeof ctx;
      const kernel = await createExemplarDistanceKernel(small, dim);
      expect(worstAbs(await kernel.run(points, sets), want)).toBe(0);
    });
  });
}
