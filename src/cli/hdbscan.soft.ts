/**
 * `treeline hdbscan … --soft` (issue 21): each point's soft membership in every cluster of the fit, hdbscan's
 * `all_points_membership_vectors` (src/cluster/membership.ts). csv: one column per cluster, `p0 … p{k−1}`, after
 * label, probability and outlier_score; json: `membership`, n rows of k; npy: `membership.npy`, n × k float64.
 * One fit only (one --min-cluster-size), as --save-model: the memberships come from that fit's model.
 */
import type { Command } from 'commander';
import { allPointsMembershipVectors } from '../cluster/membership.js';
import type { HdbscanModel } from '../cluster/model.js';
import { InputError } from '../errors.js';
import type { Column } from '../io/write.js';
import type { Backend } from './options.js';

export interface HdbscanSoftOptions {
  /** Also each point's soft membership in every cluster. */
  soft?: boolean;
}

/** n × k memberships, row-major. */
export interface SoftMembership {
  /** n · k probabilities: point i's membership in cluster j at i · k + j. */
  vectors: Float64Array;
  /** Clusters (columns). */
  k: number;
}

export function addSoftOption(cmd: Command): Command {
  return cmd.option(
    '--soft',
    "also each point's soft membership in every cluster (hdbscan's all_points_membership_vectors): csv p0,p1,…; json membership; npy membership.npy (n × k)",
  );
}

/** --soft needs one fit; checked before any work. */
export function checkSoftOptions(o: HdbscanSoftOptions & { minClusterSize: number[] }): void {
  if (o.soft && o.minClusterSize.length > 1) {
    throw new InputError(
      `--soft gives the memberships of one fit: give one --min-cluster-size, got ${o.minClusterSize.join(',')}.`,
    );
  }
}

/**
 * The memberships of the model's training points. `--backend gpu` computes the distances to the exemplars on the
 * GPU; `auto` does from THRESHOLDS.membershipGpuMinPoints points on a hardware GPU (timed on the H100:
 * bench/RESULTS.md, issue 21), else on the CPU; `cpu` on the CPU.
 */
export async function softMembership(model: HdbscanModel, backend: Backend = 'auto'): Promise<SoftMembership> {
  return { vectors: await allPointsMembershipVectors(model, { backend }), k: model.selectedClusters.length };
}

/** csv: one column per cluster, p0 … p{k−1}. */
export function softColumns(s: SoftMembership): Record<string, Column> {
  const { vectors, k } = s;
  const n = k > 0 ? vectors.length / k : 0;
  const cols: Record<string, Column> = {};
  for (let j = 0; j < k; j++) {
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) col[i] = vectors[i * k + j];
    cols[`p${j}`] = col;
  }
  return cols;
}

/** json: n rows of k (rows of [] when there are no clusters). */
export function softJson(s: SoftMembership, n: number): { membership: Float64Array[] } {
  const { vectors, k } = s;
  return { membership: Array.from({ length: n }, (_, i) => vectors.subarray(i * k, (i + 1) * k)) };
}

/** npy: membership.npy with shape [n, k]. */
export function softNpy(
  s: SoftMembership,
  n: number,
): { arrays: { membership: Float64Array }; shapes: { membership: number[] } } {
  return { arrays: { membership: s.vectors }, shapes: { membership: [n, s.k] } };
}
