/**
 * The soft-clustering golden cases (test/golden/hdbscan-extra: hdbscan 0.8.43's all_points_membership_vectors and
 * membership_vector on treeline's canonical MST), read the same way by the CPU and GPU tests.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { clusterFromMst, createModel, type HdbscanModel } from '../../src/cluster/index.js';
import { GOLDEN_DIR, parseGoldenJson, readGoldenText, readPointsCsv } from './golden.js';

const EXTRA_DIR = join(GOLDEN_DIR, 'hdbscan-extra');

/** One row of hdbscan-extra/index.json. */
export interface ExtraEntry {
  case: string;
  params: string;
  n: number;
  d: number;
  n_clusters: number;
  /** The points file, relative to the case folder. */
  input: string;
}

/** The soft-clustering part of hdbscan-extra/<case>/<params>.json (test/golden/hdbscan-extra/README.md). */
export interface ExtraCase {
  params: { min_cluster_size: number; min_samples: number; allow_single_cluster: boolean };
  n_clusters: number;
  min_samples_effective: number;
  canonical: { labels: number[]; mst_edges: number[][] };
  selected_clusters: number[];
  exemplar_counts: number[];
  all_points_membership: number[][];
  membership_new: { points: number[][]; vectors: number[][] };
}

export const readExtra = <T>(...parts: string[]): T => parseGoldenJson<T>(readGoldenText(join(EXTRA_DIR, ...parts)));

/** The golden case's fit on its canonical MST (float64 weights, or rounded to float32 as the GPU delivers them). */
export function extraModel(e: ExtraEntry, g: ExtraCase, f32: boolean): HdbscanModel {
  const { points, dim, n } = readPointsCsv(join(EXTRA_DIR, e.case, e.input));
  const edges = g.canonical.mst_edges;
  const mst = {
    sources: Uint32Array.from(edges, (r) => r[0]),
    targets: Uint32Array.from(edges, (r) => r[1]),
    weights: f32 ? Float32Array.from(edges, (r) => r[2]) : Float64Array.from(edges, (r) => r[2]),
  };
  const fit = clusterFromMst(mst, n, {
    minClusterSize: g.params.min_cluster_size,
    allowSingleCluster: g.params.allow_single_cluster,
  });
  expect(Array.from(fit.labels)).toEqual(g.canonical.labels);
  return createModel({ points, dim, result: fit, minSamples: g.params.min_samples });
}
