/**
 * The largest n each GPU entry point takes on a device (issue 19): every array that a kernel binds whole must fit
 * one storage binding (`maxStorageBufferBindingSize`, lowered by `TREELINE_MAX_BINDING_BYTES`: gpu/context.ts), so
 * n is capped by the array with the most bytes per point. The list below is the current code's arrays, with their
 * byte counts as the modules that allocate them compute them (the file named beside each); the BVH's boxes are the
 * one array already split (bvh/layout.ts, "Box parts"). `checkCapacity` refuses an n above the cap with a one-line
 * InputError before anything is allocated (emstGpu, mstStats, knn), and `treeline info` prints the caps.
 *
 * Important! When an allocation's size changes, change it here too: test/gpu/emst.capacity.test.ts runs every entry
 * point at its reported maximum under a lowered limit, and the recorder (gpu/recorder.ts) refuses any binding above
 * the limit, so an array missing from this list, or larger than listed, fails that test.
 *
 * Split-capable tasks (issue 19, gpu/bigarray.ts): knn binds no array whole — the search (knn/knn.ts) and the BVH
 * build it runs (karras.ts, refit.ts, gather.ts) bind every array in parts and the outputs in windows — so its cap is
 * the most points whose parts fit the stage's storage buffers in each of those kernels (splitKernels below).
 */
import { BOX_PARTS, boxPartRecords, boxRecords, boxWords, pointsForBoxRecords } from './layout.js';
import { bigArrayParts } from '../gpu/bigarray.js';
import { InputError } from '../errors.js';

/**
 * The most splits (pairs of child clusters) a condensed tree of n points has at this minClusterSize: each split
 * leaves two clusters of ≥ minClusterSize points. Here, below the layers that use it (cluster/condense.rows.cpu.ts
 * re-exports it), so that this table of every entry point's arrays imports nothing above bvh/.
 */
export function maxSplits(n: number, minClusterSize: number): number {
  return Math.max(0, Math.floor(n / minClusterSize) - 1);
}

/** What the GPU is asked to do, as far as its arrays depend on it. */
export type CapacityTask =
  | { kind: 'emst' }
  | { kind: 'mstStats' }
  /** `resident`: clustered on the GPU (cluster/resident.ts); false for TREELINE_RESIDENT=0 or keys that do not fit. */
  | { kind: 'hdbscan'; minClusterSize: number; resident: boolean }
  | { kind: 'knn'; k: number };

/** The limits the caps depend on. */
export interface CapacityLimits {
  maxStorageBufferBindingSize: number;
  maxStorageBuffersPerShaderStage: number;
  /** Where parts may start (default 256, WebGPU's default and the H100's); split-capable tasks only. */
  minStorageBufferOffsetAlignment?: number;
}

/** One array bound whole: its label and its bytes for n points. */
export interface BindingNeed {
  label: string;
  bytes: (n: number) => number;
}

/**
 * Storage buffers per stage below which Borůvka's traversal runs lean, with the box array in one binding
 * (emst/boruvka.ts, NEAREST_STORAGE_BUFFERS).
 */
const NEAREST_STORAGE_BUFFERS = 15;

/** The largest per-point arrays of each task, bound whole (smaller ones, bounded by these, are left out). */
export function bindingNeeds(task: CapacityTask, dim: number): BindingNeed[] {
  const needs: BindingNeed[] = [
    // emst::points (pipeline.ts, uploadFloat32) and bvh::sortedPoints (bvh/lbvh.ts): 4·dim bytes a point.
    { label: 'emst::points', bytes: (n) => 4 * dim * n },
    // bvh::links (bvh/lbvh.ts): 16 bytes a point, the largest of the BVH's unsplit arrays.
    { label: 'bvh::links', bytes: (n) => 16 * n },
  ];
  if (task.kind === 'emst' || task.kind === 'mstStats' || task.kind === 'hdbscan') {
    // emst::edges (boruvka.ts): 12 bytes for each of max(n, 2) points.
    needs.push({ label: 'emst::edges', bytes: (n) => 12 * Math.max(n, 2) });
  }
  if (task.kind === 'mstStats') {
    // stats::walkFlags (stats/branches.ts), compacted whole (primitives/compact.ts): 4 bytes an edge. The statistics'
    // other arrays are windowed or in parts (issue 19), and the walk's parts fit the stage wherever the EMST's
    // 16-byte links fit one binding.
    needs.push({ label: 'stats::walkFlags', bytes: (n) => 4 * Math.max(n - 1, 1) });
  }
  if (task.kind === 'hdbscan' && task.resident) {
    const mcs = task.minClusterSize;
    // cluster::linkage.own (cluster/dendrogram.ts): 8 bytes for each of 2m + n + 1 Euler tokens.
    needs.push({ label: 'cluster::linkage.own', bytes: (n) => 8 * (2 * Math.max(1, n - 1) + n + 1) });
    // The condenser's largest (cluster/condense.rows.ts; its rows go straight into 4-byte columns): the row sort's
    // 8-byte keys for each of n + 2·maxSplits rows, the merges' and pointer jumping's 16 bytes a merge — all below
    // the Euler tokens' 24 bytes a point, listed so that a change there shows here.
    needs.push({ label: 'cluster::condense.keys', bytes: (n) => 8 * (n + 2 * maxSplits(n, mcs)) });
    needs.push({ label: 'cluster::condense.jdl', bytes: (n) => 16 * Math.max(1, n - 1) });
  }
  return needs;
}

/**
 * A kernel that binds every per-point array in parts (gpu/bigarray.ts, planParts): `fixed` other storage bindings
 * and each array's element stride (bytes) and length for n points, as the module named in its label plans them.
 */
interface SplitKernel {
  label: string;
  fixed: number;
  arrays: { stride: number; length: (n: number) => number }[];
}

/** The kernels of a split-capable task (null: the task still binds its arrays whole). */
function splitKernels(task: CapacityTask, dim: number): SplitKernel[] | null {
  if (task.kind !== 'knn') return null;
  const boxes = { stride: 4, length: (n: number) => boxWords(dim) * boxRecords(n) };
  const parents = { stride: 4, length: (n: number) => Math.max(2 * n - 1, 1) };
  const ranges = { stride: 8, length: (n: number) => Math.max(n - 1, 1) };
  const points = { stride: 4, length: (n: number) => n * dim };
  const order = { stride: 4, length: (n: number) => n };
  return [
    // knn/knn.ts (bvhArrays): points, order, links, boxes; the two outputs are windows.
    { label: 'knn::search', fixed: 2, arrays: [points, order, { stride: 16, length: (n) => n }, boxes] },
    // bvh/karras.ts: codes, links, ranges, parents, boxes.
    {
      label: 'bvh::karras',
      fixed: 0,
      arrays: [{ stride: 8, length: (n) => n }, { stride: 16, length: (n) => n }, ranges, parents, boxes],
    },
    // bvh/refit.ts: sorted points, order, parents, links (words), boxes, ranges.
    {
      label: 'bvh::refit',
      fixed: 0,
      arrays: [points, order, parents, { stride: 4, length: (n) => 4 * n }, boxes, ranges],
    },
    // bvh/gather.ts: the points in parts beside order and the sorted output.
    { label: 'bvh::gather', fixed: 2, arrays: [points] },
  ];
}

/** Storage bindings a split kernel takes for n points. */
function splitSlots(limits: CapacityLimits, kernel: SplitKernel, n: number): number {
  // Named one by one: a device's GPUSupportedLimits has its values as getters, which a spread would not copy.
  const full = {
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    minStorageBufferOffsetAlignment: limits.minStorageBufferOffsetAlignment ?? 256,
  };
  return kernel.arrays.reduce((s, a) => s + bigArrayParts(full, a.length(n), a.stride).parts, kernel.fixed);
}

/** The largest n a task takes on a device with these limits, and the array that sets it. */
export interface Capacity {
  maxPoints: number;
  /** The label of the array that sets the cap. */
  limitedBy: string;
}

/** The most points whose every array (bindingNeeds, and the BVH's box parts) fits `limits`. */
export function capacity(limits: CapacityLimits, task: CapacityTask, dim: number): Capacity {
  const binding = limits.maxStorageBufferBindingSize;
  const split = splitKernels(task, dim);
  if (split) {
    // Word indices are u32: the box words (2·dim a point) stay below 2^32.
    let best: Capacity = { maxPoints: Math.floor((2 ** 32 - 1) / boxWords(dim)), limitedBy: 'u32 indices' };
    const stage = limits.maxStorageBuffersPerShaderStage;
    for (const kernel of split) {
      // splitSlots(n) is non-decreasing: the largest n whose slots fit the stage, by bisection over [0, best].
      let lo = 0;
      let hi = best.maxPoints;
      if (splitSlots(limits, kernel, hi) <= stage) continue;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (splitSlots(limits, kernel, mid) <= stage) lo = mid;
        else hi = mid;
      }
      best = { maxPoints: lo, limitedBy: kernel.label };
    }
    return best;
  }
  // The box array in BOX_PARTS bindings, or one where the traversal runs lean (boruvka.ts).
  const parts = limits.maxStorageBuffersPerShaderStage < NEAREST_STORAGE_BUFFERS ? 1 : BOX_PARTS;
  let best: Capacity = {
    maxPoints: pointsForBoxRecords(parts * boxPartRecords(binding, dim)),
    limitedBy: 'bvh::boxes',
  };
  for (const need of bindingNeeds(task, dim)) {
    // bytes(n) is non-decreasing: the largest n with bytes(n) ≤ binding, by bisection over [0, best].
    let lo = 0;
    let hi = best.maxPoints;
    if (need.bytes(hi) <= binding) continue;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (need.bytes(mid) <= binding) lo = mid;
      else hi = mid;
    }
    best = { maxPoints: lo, limitedBy: need.label };
  }
  return best;
}

/** A task's name as the messages say it. */
function taskName(task: CapacityTask): string {
  if (task.kind === 'knn') return `knn (k = ${task.k})`;
  if (task.kind === 'hdbscan') return task.resident ? 'hdbscan (clustered on the GPU)' : 'hdbscan';
  return task.kind;
}

/**
 * Throws a one-line InputError when n points exceed what `task` takes on a device with these limits; called before
 * anything is allocated. `deviceBinding`: the device's own binding limit, named when the limit was lowered.
 */
export function checkCapacity(
  limits: CapacityLimits,
  n: number,
  dim: number,
  task: CapacityTask,
  deviceBinding = limits.maxStorageBufferBindingSize,
): void {
  const cap = capacity(limits, task, dim);
  if (n <= cap.maxPoints) return;
  const binding = limits.maxStorageBufferBindingSize;
  const lowered = binding < deviceBinding ? ` (TREELINE_MAX_BINDING_BYTES; the device binds ${deviceBinding})` : '';
  let instead = "use backend 'cpu'";
  if (task.kind === 'hdbscan' && task.resident) {
    const host = capacity(limits, { ...task, resident: false }, dim).maxPoints;
    if (n <= host) instead = `TREELINE_RESIDENT=0 (clustering on the host) takes up to ${host}`;
  }
  throw new InputError(
    `${taskName(task)} on the GPU takes at most ${cap.maxPoints} points in ${dim} dimensions on this device, got ${n}: ` +
      (splitKernels(task, dim)
        ? `its ${cap.limitedBy} kernel binds its arrays in parts of one ${binding}-byte storage binding${lowered}, at most ${limits.maxStorageBuffersPerShaderStage} a stage; ${instead}.`
        : `its ${cap.limitedBy} array must fit one ${binding}-byte storage binding${lowered}; ${instead}.`),
  );
}
