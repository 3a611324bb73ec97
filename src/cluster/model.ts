/**
 * A fitted HDBSCAN* model: what `approximatePredict` needs (the training points, hdbscan's prediction core
 * distances, the condensed tree, the selected clusters, minSamples) plus the fit's labels, probabilities and GLOSH
 * scores. `saveModel`/`loadModel` are pure functions over a JSON string; reading and writing files is the CLI's job.
 *
 * The JSON holds the typed arrays as little-endian base64 (exact, ∞ included) and leaves out what the tree
 * determines: labels, probabilities and outlier scores are recomputed on load (O(n)). Important! V8 strings hold
 * at most 2^29 − 24 characters, about 40 bytes of model per point (3D) → ~9·10^6 points per model string.
 *
 * Every model is checked at the door (`validateModel`, O(n · d + rows)) by createModel, loadModel and
 * approximatePredict, with hdbscan()'s rule for coordinates (issue 15): a NaN training point or a minSamples of 0
 * would otherwise predict label 2 with probability 1 for anything.
 */
import { checkCoordinates } from '../emst/validate.js';
import { InputError } from '../errors.js';
import { base64ToBytes, bytesToBase64 } from './base64.js';
import { clusterTreeInfo, pointRows } from './clusterTree.js';
import { outlierScores } from './glosh.js';
import { predictionCoreDistances } from '../knn/brute.cpu.js';
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
  result: Omit<ClusterResult, 'mst' | 'singleLinkage'>;
  /** Default: the fit's minClusterSize (hdbscan's default min_samples). */
  minSamples?: number;
  /** Computed by brute force (O(n² d)) when omitted; pass the k-NN's column minSamples − 1 where you have it. */
  predictionCoreDistances?: Float64Array;
}

/**
 * The largest minSamples a model may hold: no point set has more than 2^32 − 2 points, and every minSamples ≥ n
 * predicts alike (the k-NN is clamped to n), so anything above is a corrupt or hand-edited model.
 */
const MAX_MIN_SAMPLES = 0xffffffff;

const describe = (x: unknown) =>
  x === null || typeof x !== 'object' ? String(x) : Object.prototype.toString.call(x).slice(8, -1);

function checkPoints(points: unknown, dim: unknown, n: number): asserts points is Float32Array {
  if (!(points instanceof Float32Array))
    throw new InputError(`Expected model points to be a Float32Array, got ${describe(points)}.`);
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1) {
    throw new InputError(`Expected model dim to be a positive integer, got ${describe(dim)}.`);
  }
  if (points.length !== n * dim) {
    throw new InputError(`Expected ${n} model points × dim=${dim} = ${n * dim} coordinates, got ${points.length}.`);
  }
  try {
    checkCoordinates(points, dim);
  } catch (e) {
    throw e instanceof InputError ? new InputError(`Model points: ${e.message}`) : e;
  }
}

function checkMinSamples(minSamples: unknown): asserts minSamples is number {
  if (
    typeof minSamples !== 'number' ||
    !Number.isInteger(minSamples) ||
    minSamples < 1 ||
    minSamples > MAX_MIN_SAMPLES
  ) {
    throw new InputError(
      `Expected the model's minSamples to be an integer in [1, 2^32 − 1], got ${describe(minSamples)}.`,
    );
  }
}

/**
 * Checks a model for approximatePredict (CONVENTIONS.md 10): training points finite and in range (hdbscan()'s rule,
 * the message naming row and column), minSamples an integer in [1, 2^32 − 1], prediction core distances finite and
 * ≥ 0, the condensed tree's rows and λ (≥ 0, ∞ allowed) and the selected clusters in range. Throws InputError.
 */
export function validateModel(model: HdbscanModel): void {
  if (model === null || typeof model !== 'object')
    throw new InputError(`Expected a model object, got ${describe(model)}.`);
  const tree = model.condensedTree;
  if (tree === null || typeof tree !== 'object' || !Number.isInteger(tree.numPoints) || tree.numPoints < 0) {
    throw new InputError(
      `Expected the model's condensedTree to have an integer numPoints ≥ 0, got ${describe(tree?.numPoints)}.`,
    );
  }
  const n = tree.numPoints;
  checkPoints(model.points, model.dim, n);
  checkMinSamples(model.minSamples);
  checkCoreDistances(model.predictionCoreDistances, n);
  checkTree(tree, model.selectedClusters);
}

function checkCoreDistances(core: unknown, n: number): void {
  if (!(core instanceof Float64Array) || core.length !== n) {
    throw new InputError(
      `Expected ${n} prediction core distances (Float64Array), got ${core instanceof Float64Array ? core.length : describe(core)}.`,
    );
  }
  for (let i = 0; i < n; i++) {
    if (!(core[i] >= 0 && core[i] < Infinity)) {
      throw new InputError(`Expected finite prediction core distances ≥ 0, got ${core[i]} at point ${i}.`);
    }
  }
}

/** The condensed tree's rows, λ and the selected clusters, against n points and numClusters clusters. */
function checkTree(tree: CondensedTree, selectedClusters: Uint32Array): void {
  const { numPoints: n, numClusters: k } = tree;
  if (!Number.isInteger(k) || k < 0)
    throw new InputError(`Expected the model's numClusters to be an integer ≥ 0, got ${describe(k)}.`);
  const rows = tree.parent.length;
  if (tree.child.length !== rows || tree.lambda.length !== rows || tree.childSize.length !== rows) {
    throw new InputError(
      `Expected the model's condensed tree arrays to have one length, got ${rows}, ${tree.child.length}, ${tree.lambda.length}, ${tree.childSize.length}.`,
    );
  }
  for (let r = 0; r < rows; r++) {
    const p = tree.parent[r];
    const c = tree.child[r];
    if (p < n || p >= n + k || c >= n + k || (c >= n && c <= p)) {
      throw new InputError(
        `Model condensed tree row ${r} = (${p}, ${c}) is out of range for ${n} points, ${k} clusters.`,
      );
    }
    if (!(tree.lambda[r] >= 0))
      throw new InputError(`Expected model condensed tree λ ≥ 0 (∞ allowed), got ${tree.lambda[r]} at row ${r}.`);
  }
  for (const s of selectedClusters) {
    if (s < n || s >= n + k)
      throw new InputError(`Model selected cluster ${s} is not a cluster id in [${n}, ${n + k}).`);
  }
}

/** Bundles a fit into a model. */
export function createModel(input: CreateModelInput): HdbscanModel {
  const { points, dim, result } = input;
  const n = result.condensedTree.numPoints;
  checkPoints(points, dim, n);
  const minSamples = input.minSamples ?? result.options.minClusterSize;
  checkMinSamples(minSamples);
  const core = input.predictionCoreDistances ?? predictionCoreDistances(points, dim, minSamples);
  checkCoreDistances(core, n);
  checkTree(result.condensedTree, result.selectedClusters);
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
  return (
    dtype === 'float32'
      ? new Float32Array(buffer)
      : dtype === 'float64'
        ? new Float64Array(buffer)
        : new Uint32Array(buffer)
  ) as T;
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
    throw new InputError(
      `Expected a ${FORMAT} version ${VERSION}, got format ${String(doc?.format)} version ${String(doc?.version)}.`,
    );
  }
  const n = doc.numPoints as number;
  const dim = doc.dim as number;
  const k = doc.numClusters as number;
  const minSamples = doc.minSamples as number;
  for (const [name, v] of [
    ['numPoints', n],
    ['dim', dim],
    ['numClusters', k],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw new InputError(`Expected model field ${name} to be an integer ≥ 0, got ${v}.`);
  }
  checkMinSamples(minSamples);
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
  checkPoints(points, dim, n);
  checkCoreDistances(core, n);
  checkTree(condensedTree, selectedClusters);
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
