/**
 * A fitted HDBSCAN* model: what `approximatePredict` needs (the training points, hdbscan's prediction core
 * distances, the condensed tree, the selected clusters, minSamples) plus the fit's labels, probabilities and GLOSH
 * scores. `saveModel`/`loadModel` are pure functions over a JSON string; reading and writing files is the CLI's job.
 *
 * The JSON holds the typed arrays as little-endian base64 (exact, ∞ included) and leaves out what the tree
 * determines: labels, probabilities and outlier scores are recomputed on load (O(n)). Important! V8 strings hold
 * at most 2^29 − 24 characters, about 40 bytes of model per point (3D) → ~9·10^6 points per model string.
 */
import { InputError } from '../errors.js';
import { base64ToBytes, bytesToBase64 } from './base64.js';
import { clusterTreeInfo, pointRows } from './clusterTree.js';
import { outlierScores } from './glosh.js';
import { predictionCoreDistances } from './bruteKnn.js';
import { labelPoints } from './labels.js';
import { resolveClusterOptions } from './options.js';
import { membershipProbabilities } from './probabilities.js';
import type { ClusterResult, CondensedTree, ResolvedClusterOptions } from './types.js';

const FORMAT = 'treeline-hdbscan-model';
const VERSION = 1;

export interface HdbscanModel {
  /** Coordinates per point. */
  dim: number;
  /** Training points, row-major n × dim. */
  points: Float32Array;
  /** hdbscan's min_samples (= treeline's minSamples: neighbours excluding the point itself in the fit). */
  minSamples: number;
  /** The clustering options of the fit. */
  options: ResolvedClusterOptions;
  /** Distance of each training point to its minSamples-th neighbour counting itself (hdbscan's prediction data). */
  predictionCoreDistances: Float64Array;
  condensedTree: CondensedTree;
  /** Condensed-tree id of each label's cluster. */
  selectedClusters: Uint32Array;
  /** The fit's labels, probabilities and GLOSH scores (recomputed from the tree on load). */
  labels: Int32Array;
  probabilities: Float64Array;
  outlierScores: Float64Array;
}

export interface CreateModelInput {
  points: Float32Array;
  dim: number;
  /** The fit's result on these points. */
  result: ClusterResult;
  /** Default: the fit's minClusterSize (hdbscan's default min_samples). */
  minSamples?: number;
  /** Computed by brute force (O(n² d)) when omitted; pass the k-NN's column minSamples − 1 where you have it. */
  predictionCoreDistances?: Float64Array;
}

/** Bundles a fit into a model. */
export function createModel(input: CreateModelInput): HdbscanModel {
  const { points, dim, result } = input;
  const n = result.condensedTree.numPoints;
  if (!(points instanceof Float32Array)) throw new InputError(`Expected points to be a Float32Array.`);
  if (!Number.isInteger(dim) || dim < 1 || points.length !== n * dim) {
    throw new InputError(`Expected ${n} points × dim=${dim} = ${n * dim} coordinates, got ${points.length} (dim ${dim}).`);
  }
  const minSamples = input.minSamples ?? result.options.minClusterSize;
  if (!Number.isInteger(minSamples) || minSamples < 1) {
    throw new InputError(`Expected minSamples to be an integer ≥ 1, got ${minSamples}.`);
  }
  const core = input.predictionCoreDistances ?? predictionCoreDistances(points, dim, minSamples);
  if (core.length !== n) throw new InputError(`Expected ${n} prediction core distances, got ${core.length}.`);
  return {
    dim,
    points,
    minSamples,
    options: result.options,
    predictionCoreDistances: core,
    condensedTree: result.condensedTree,
    selectedClusters: result.selectedClusters,
    labels: result.labels,
    probabilities: result.probabilities,
    outlierScores: result.outlierScores,
  };
}

type Dtype = 'float32' | 'float64' | 'uint32';
interface EncodedArray {
  dtype: Dtype;
  length: number;
  base64: string;
}

function encode(a: Float32Array | Float64Array | Uint32Array): EncodedArray {
  const dtype: Dtype = a instanceof Float32Array ? 'float32' : a instanceof Float64Array ? 'float64' : 'uint32';
  return { dtype, length: a.length, base64: bytesToBase64(a) };
}

function decode<T extends Float32Array | Float64Array | Uint32Array>(
  e: EncodedArray | undefined,
  dtype: Dtype,
  length: number,
  what: string,
): T {
  if (!e || e.dtype !== dtype || e.length !== length) {
    throw new InputError(
      `Expected model field ${what} to be ${dtype}[${length}], got ${e ? `${e.dtype}[${e.length}]` : 'nothing'}.`,
    );
  }
  const bytes = base64ToBytes(e.base64, what);
  const size = dtype === 'float64' ? 8 : 4;
  if (bytes.length !== length * size) {
    throw new InputError(`Expected ${length * size} bytes in model field ${what}, got ${bytes.length}.`);
  }
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return (dtype === 'float32' ? new Float32Array(buffer) : dtype === 'float64' ? new Float64Array(buffer) : new Uint32Array(buffer)) as T;
}

/** The model as a JSON string. */
export function saveModel(model: HdbscanModel): string {
  const t = model.condensedTree;
  return JSON.stringify({
    format: FORMAT,
    version: VERSION,
    dim: model.dim,
    numPoints: t.numPoints,
    numClusters: t.numClusters,
    minSamples: model.minSamples,
    options: model.options,
    arrays: {
      points: encode(model.points),
      predictionCoreDistances: encode(model.predictionCoreDistances),
      parent: encode(t.parent),
      child: encode(t.child),
      lambda: encode(t.lambda),
      childSize: encode(t.childSize),
      selectedClusters: encode(model.selectedClusters),
    },
  });
}

/** A model from `saveModel`'s JSON. Throws InputError on anything malformed. */
export function loadModel(json: string): HdbscanModel {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(json) as Record<string, unknown>;
  } catch (e) {
    throw new InputError(`Expected a model in JSON, got unparsable text: ${(e as Error).message}`);
  }
  if (doc?.format !== FORMAT || doc.version !== VERSION) {
    throw new InputError(`Expected a ${FORMAT} version ${VERSION}, got format ${String(doc?.format)} version ${String(doc?.version)}.`);
  }
  const n = doc.numPoints as number;
  const dim = doc.dim as number;
  const k = doc.numClusters as number;
  const minSamples = doc.minSamples as number;
  for (const [name, v] of [['numPoints', n], ['dim', dim], ['numClusters', k], ['minSamples', minSamples]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new InputError(`Expected model field ${name} to be an integer ≥ 0, got ${v}.`);
  }
  const options = resolveClusterOptions(doc.options as ResolvedClusterOptions);
  const arrays = (doc.arrays ?? {}) as Record<string, EncodedArray>;
  const rowCount = arrays.parent?.length ?? -1;
  const points = decode<Float32Array>(arrays.points, 'float32', n * dim, 'points');
  const core = decode<Float64Array>(arrays.predictionCoreDistances, 'float64', n, 'predictionCoreDistances');
  const condensedTree: CondensedTree = {
    parent: decode<Uint32Array>(arrays.parent, 'uint32', rowCount, 'parent'),
    child: decode<Uint32Array>(arrays.child, 'uint32', rowCount, 'child'),
    lambda: decode<Float64Array>(arrays.lambda, 'float64', rowCount, 'lambda'),
    childSize: decode<Uint32Array>(arrays.childSize, 'uint32', rowCount, 'childSize'),
    numPoints: n,
    numClusters: k,
  };
  const selectedClusters = decode<Uint32Array>(
    arrays.selectedClusters,
    'uint32',
    arrays.selectedClusters?.length ?? -1,
    'selectedClusters',
  );
  for (let r = 0; r < rowCount; r++) {
    const p = condensedTree.parent[r];
    const c = condensedTree.child[r];
    if (p < n || p >= n + k || c >= n + k || (c >= n && c <= p)) {
      throw new InputError(`Model condensed tree row ${r} = (${p}, ${c}) is out of range for ${n} points, ${k} clusters.`);
    }
  }
  for (const s of selectedClusters) {
    if (s < n || s >= n + k) throw new InputError(`Model selected cluster ${s} is not a cluster id in [${n}, ${n + k}).`);
  }
  const info = clusterTreeInfo(condensedTree);
  const selected = Int32Array.from(selectedClusters, (s) => s - n);
  const rows = pointRows(condensedTree);
  const labels = labelPoints(rows, info, selected, options);
  return {
    dim,
    points,
    minSamples,
    options,
    predictionCoreDistances: core,
    condensedTree,
    selectedClusters,
    labels,
    probabilities: membershipProbabilities(rows, info, selected, labels),
    outlierScores: outlierScores(rows, info),
  };
}
