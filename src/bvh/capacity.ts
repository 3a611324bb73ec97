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
 * the most points whose parts fit the stage's storage buffers in each of those kernels (splitKernels below). emst
 * too where the stage binds Borůvka's split traversal's 16 storage buffers (emst/nearestsplit.ts, roundsplit.ts:
 * windows, and parts for best, edges, parents and minCore2), beside the 4-byte arrays it still binds whole
 * (splitWholeNeeds: the labels).
 */
import {
  BOX_PARTS,
  boxArrayWords,
  boxFormatFor,
  boxPartRecords,
  boxRecords,
  boxWords,
  pointsForBoxRecords,
  type BoxFormat,
} from './layout.js';
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
  /**
   * `mutualReachability`: minSamples > 1 (the k-NN search of the core distances and the traversal's core bindings
   * join the kernels); default false, the Euclidean MST.
   */
  | { kind: 'emst'; mutualReachability?: boolean }
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
    // bvh::links and bvh::minIndex (bvh/lbvh.ts): 8 + 8 bytes a point, counted as the one 16-byte array they were
    // before issue 19 split it (layout.ts, "Records"): the unsplit traversal (emst/nearestsplit.ts traversalSplits) and
    // the statistics' walk below were sized at this bound, so the caps stay as measured.
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

/** Storage buffers Borůvka's split traversal binds (emst/nearestsplit.ts, SPLIT_STORAGE_BUFFERS). */
const SPLIT_TRAVERSAL_BUFFERS = 16;

/** The kernels of a split-capable task (null: the task still binds its arrays whole). */
function splitKernels(task: CapacityTask, dim: number, stage: number): SplitKernel[] | null {
  if (task.kind !== 'knn' && !(task.kind === 'emst' && stage >= SPLIT_TRAVERSAL_BUFFERS)) return null;
  // In the BVH's box format (layout.ts boxFormatFor; split BVHs too).
  const format = boxFormatFor(dim);
  const boxes = { stride: 4, length: (n: number) => boxArrayWords(n, dim, format) };
  const parents = { stride: 4, length: (n: number) => Math.max(2 * n - 1, 1) };
  // One u32 a node: the range's end other than the node (layout.ts, "Ranges").
  const ranges = { stride: 4, length: (n: number) => Math.max(n - 1, 1) };
  const points = { stride: 4, length: (n: number) => n * dim };
  const order = { stride: 4, length: (n: number) => n };
  const words = (perPoint: number, less = 0) => ({ stride: 4, length: (n: number) => perPoint * n - less });
  // label: n labels and the two flag words (emst/boruvka.ts).
  const label = words(1, -2);
  // emst (issue 19): Borůvka's kernels with parts (emst/roundsplit.ts, emst/nearestsplit.ts; the others bind
  // windows, or fewer parts: relabel, upperbounds, changes, nodelabels, best, bestmax, split_active), and for mutual
  // reachability the traversal's core bindings, the prelude's climb and the gather of the core distances
  // (emst/gather.ts); its k-NN search and the BVH build as knn's.
  const mr = task.kind === 'emst' && task.mutualReachability === true;
  const boruvka: SplitKernel[] =
    task.kind !== 'emst'
      ? []
      : [
          // emst/nearest_split.wgsl: 10 windows and roots; order, label and the upper bounds in parts (and for
          // mutual reachability 3 more windows: the core distances of queries and leaves, minCore2 per record).
          {
            label: mr ? 'emst::nearestSplit.mr' : 'emst::nearestSplit',
            fixed: mr ? 13 : 10,
            arrays: [order, label, order],
          },
          // emst/split_winner.wgsl: cand and the flags (windows); label, order, bestMax, best in parts.
          { label: 'emst::split_winner', fixed: 2, arrays: [label, order, order, words(2)] },
          // emst/split_merge.wgsl: cand, the flags and the edge count; label, order, the union-find, edges in parts.
          { label: 'emst::split_merge', fixed: 3, arrays: [label, order, order, words(3)] },
          ...(mr
            ? [
                // emst/split_mincore.wgsl: core2, arrival flags; parents and minCore2 in parts.
                { label: 'emst::split_mincore', fixed: 2, arrays: [words(2, 1), words(2)] },
                // emst/gather.ts: order and out beside the core distances in parts.
                { label: 'emst::gather', fixed: 2, arrays: [order] },
              ]
            : []),
        ];
  // The k-NN search: knn's own, and the mutual reachability's core distances.
  const search = task.kind === 'knn' || mr;
  return [
    ...boruvka,
    // knn/knn.ts (bvhArrays): points, order, links, minIndex (8 bytes a record each: layout.ts), boxes; the two
    // outputs are windows.
    ...(search
      ? [
          {
            label: 'knn::search',
            fixed: 2,
            arrays: [
              points,
              order,
              { stride: 8, length: (n: number) => n },
              { stride: 8, length: (n: number) => n },
              boxes,
            ],
          },
        ]
      : []),
    // bvh/karras.ts: codes, links (8 bytes a record), ranges, parents — and the boxes, where they fit beside them;
    // else the encoder clears the boxes instead of binding them (clearsBoxes), so they never set the cap.
    {
      label: 'bvh::karras',
      fixed: 0,
      arrays: [{ stride: 8, length: (n) => n }, { stride: 8, length: (n) => n }, ranges, parents],
    },
    // bvh/refit.ts: in one pass sorted points, order, parents, minIndex words, boxes, ranges; where those exceed the
    // stage, two (refitPasses) — the boxes pass binds the sorted points, parents, boxes and ranges (16 slots for
    // 6·10^8 3D points at 2 GiB a binding), the minIndex pass order, parents, minIndex words and ranges. One pass binds
    // a superset of each, so the two passes set the cap.
    { label: 'bvh::refit.boxes', fixed: 0, arrays: [points, parents, boxes, ranges] },
    {
      label: 'bvh::refit.minIndex',
      fixed: 0,
      arrays: [order, parents, { stride: 4, length: (n) => 2 * n }, ranges],
    },
    // bvh/gather.ts: the points in parts beside order and the sorted output.
    { label: 'bvh::gather', fixed: 2, arrays: [points] },
  ];
}

/** The arrays a split-capable task still binds whole (4 bytes a point: parts would cost more than they hold). */
function splitWholeNeeds(task: CapacityTask, limits: CapacityLimits): BindingNeed[] {
  // Issue 19: every 4-byte array of the Euclidean split path is in parts (emst/roundsplit.ts, nearestsplit.ts,
  // plan.wgsl's flag words in a range, unionfind::init and the changes' scan by windows), so the kernels' parts
  // above set its cap — 6·10^8 3D points fit the H100's 16 storage buffers of 2 GiB (run there at 7fd5563: 5,681 ms,
  // 62,085 MiB, n − 1 edges and no cycle; bench/RESULTS.md). The mutual reachability's
  // prelude (emst/split_mincore.wgsl) still binds its arrival flags whole (an atomicExchange, which the generated
  // accessors lack), 4 bytes a point in pointBound's buffer.
  if (task.kind !== 'emst') return [];
  const needs: BindingNeed[] = [];
  if (task.mutualReachability === true) needs.push({ label: 'emst::arrive', bytes: (n) => 4 * n });
  // The changes' scan (primitives/scan.ts) goes by windows of 64 tiles of 2048 elements (its default block shape;
  // windowElements): where one binding holds fewer u32 (below 512 KiB), the n changes must fit one.
  const align = limits.minStorageBufferOffsetAlignment ?? 256;
  if (Math.floor(limits.maxStorageBufferBindingSize / 4) < (align / 4) * 2048) {
    needs.push({ label: 'emst::changes', bytes: (n) => 4 * n });
  }
  return needs;
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
  /** The label of the array that sets the cap (or of the kernel, where its parts do). */
  limitedBy: string;
  /** Whether a kernel's parts set it (else one array bound whole, or the u32 indices). */
  parts?: boolean;
}

/** The largest n ≤ best.maxPoints whose every need fits one binding (bisection: bytes(n) is non-decreasing). */
function wholeCap(binding: number, needs: BindingNeed[], best: Capacity): Capacity {
  for (const need of needs) {
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

/** The most points whose every array (bindingNeeds, and the BVH's box parts) fits `limits`. */
export function capacity(limits: CapacityLimits, task: CapacityTask, dim: number): Capacity {
  const binding = limits.maxStorageBufferBindingSize;
  const split = splitKernels(task, dim, limits.maxStorageBuffersPerShaderStage);
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
      best = { maxPoints: lo, limitedBy: kernel.label, parts: true };
    }
    return wholeCap(binding, splitWholeNeeds(task, limits), best);
  }
  // The box array in BOX_PARTS bindings, or one where the traversal runs lean (boruvka.ts), in the unsplit BVH's
  // box format (layout.ts boxFormatFor).
  const parts = limits.maxStorageBuffersPerShaderStage < NEAREST_STORAGE_BUFFERS ? 1 : BOX_PARTS;
  const format = boxFormatFor(dim);
  const best: Capacity = {
    maxPoints: pointsForBoxRecords(parts * boxPartRecords(binding, dim, format), format),
    limitedBy: 'bvh::boxes',
  };
  return wholeCap(binding, bindingNeeds(task, dim), best);
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
      (cap.parts
        ? `its ${cap.limitedBy} kernel binds its arrays in parts of one ${binding}-byte storage binding${lowered}, at most ${limits.maxStorageBuffersPerShaderStage} a stage; ${instead}.`
        : `its ${cap.limitedBy} array must fit one ${binding}-byte storage binding${lowered}; ${instead}.`),
  );
}

/**
 * The EMST's GPU memory at its peak, in bytes a point beyond the input's 4·dim (issue 19's Must: ≤ 100 in 3D), as
 * GpuEmst allocates it for large n (emst/pipeline.ts, emst/boruvka.ts's BoruvkaBorrow table; the fixed few KiB of
 * uniforms and counters left out). The peak is Borůvka's rounds, where everything below is live at once:
 *
 *   BVH      boxes 8·dim in the f32 box format, 4·dim in u16 (n − 1 records; bvh/layout.ts boxFormatFor: f32 by
 *            default, u16 opt-in with TREELINE_BVH_BOXES), links 8 (their minIndex words, 8 more, live in Borůvka's
 *            edges until its first merge: layout.ts "Records"), codes 8 (lent as childLabel), parents 8 (lent as the
 *            candidates), ranges 4 (one end: layout.ts), order 4; sorted points 4·dim only without an in-place build (`inPlace: false`,
 *            TREELINE_EMST_INPLACE=0: in place they are the input's buffer)
 *   sorter   ping-pong scratch 12 (lent as best and pointBound) and a digit table of 4 bytes a digit per block of
 *            256 × 8 keys: 0.5
 *   Borůvka  edges 12 (holding the BVH's minIndex words until the first merge), label 4, changes 4 (and the active
 *            list), upper bounds 4 (and bestMax: emst/bestmax.wgsl), union-find 4
 *   mutual reachability: k-th distances 4 (lent as the upper bounds: −4), core distances 4, minCore2 8 (the run's)
 *
 * Important! test/gpu/emst.memory.test.ts measures emst()'s peak against this: change it with the allocations.
 */
export function emstPeakBytesPerPoint(
  dim: number,
  options: { mutualReachability?: boolean; inPlace?: boolean; boxes?: BoxFormat } = {},
): number {
  const boxes = (options.boxes ?? boxFormatFor(dim)) === 'u16' ? 4 * dim : 8 * dim;
  const bvh = boxes + 8 + 8 + 8 + 4 + 4 + (options.inPlace === false ? 4 * dim : 0);
  const sorter = 12 + 0.5;
  const boruvka = 12 + 4 + 4 + 4 + 4;
  const reachability = options.mutualReachability ? 4 + 4 + 8 - 4 : 0;
  return bvh + sorter + boruvka + reachability;
}
