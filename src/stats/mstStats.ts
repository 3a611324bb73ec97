/**
 * `mstStats()`: MiSTree's four MST statistics (Naidoo et al. 2020, MNRAS 491, 1709) — degree d, edge length l,
 * branch length b and branch shape s — on the exact EMST, and their histograms.
 *
 *   points → coordinates        (coords.ts: RA/Dec → unit sphere or distance × unit vector, as MiSTree)
 *          → exact EMST         (emst(): GPU or CPU; or the tree the caller gives; periodic with `box`)
 *          → degree             (degree.ts)
 *          → edge lengths       (lengths.ts: float64 from the coordinates, minimum image in a box)
 *          → branches           (branches.cpu.ts: linear-time chain walk; lengths, edge counts, end-to-end)
 *          → shapes             s = end-to-end / branch length (on the unit sphere the end-to-end chord becomes
 *                                the angle 2·arcsin(chord / 2) first, as MiSTree does, so s can exceed 1)
 *          → histograms         (histogram.ts: MiSTree's HistMST bins, or the caller's; counted by binning.ts on
 *                                the GPU)
 *
 * MiSTree builds its tree from a 20-nearest-neighbour graph, which on clustered data silently becomes a forest; the
 * EMST here is exact. Everything after the EMST is O(n) over flat typed arrays.
 *
 * When the tree is computed on the GPU, degree, edge lengths, branches and the histograms are too (branches.ts:
 * tens of millions of branch walks at once, in float32 measured from the coordinates; binning.ts: the histograms
 * counted there, equal to the host's float64 histograms of the same values). With `arrays: false` the tree never
 * leaves the GPU (emstGpu's `afterGpu`): only the histograms and counts are read back. With a given tree, the CPU
 * backend or RA/Dec input (unit-sphere chords need float64) everything runs on the CPU in float64.
 */
import { emstFor, type EmstOptions } from '../emst/emst.js';
import { AbortError } from '../errors.js';
import { degreesOf, findBranches, nodeLinks, type Branches } from './branches.cpu.js';
import { GpuBranches, type GpuBranchesResult, type GpuEdges } from './branches.js';
import { GpuBinning, gpuCanBinShapes } from './binning.js';
import { emstGpu } from '../emst/pipeline.js';
import { validateEmstInput } from '../emst/validate.js';
import { scaleInput } from '../emst/scale.js';
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { checkCapacity } from '../bvh/capacity.js';
import { gpuElseCpu } from '../gpu/fallback.js';
import { celestialToCartesian, chordToAngle } from './coords.js';
import { mstHistograms } from './histogram.js';
import { edgeLengths, type Geometry } from './lengths.js';
import type { MstHistograms } from './types.js';
import type { EdgeList } from '../emst/edges.cpu.js';
import { validateStatsInput, type MstStatsOptions } from './validate.js';
import { progressSpan } from '../progress.js';

export type { MstStatsOptions, StatsCoords } from './validate.js';

export interface MstStats {
  /** Number of points. */
  n: number;
  /** Number of tree edges (n − 1, fewer for a forest). */
  numEdges: number;
  /** Number of branches. */
  numBranches: number;
  /** Per node: its degree in the tree (0 for a node a scale cut leaves isolated). */
  degree: Uint32Array;
  /** Per edge: its first node (the EMST's canonical order: weight, then source, then target). */
  edgeSources: Uint32Array;
  /** Per edge: its second node. */
  edgeTargets: Uint32Array;
  /** Per edge: its length in float64 (unit-sphere chord for RA/Dec; minimum image in a periodic box). */
  edgeLengths: Float64Array;
  /** Per branch: the sum of its edge lengths. */
  branchLengths: Float64Array;
  /** Per branch: end-to-end / length (NaN for a branch of length 0: duplicate points). */
  branchShapes: Float64Array;
  /** Per branch: its number of edges (≥ 2). */
  branchEdgeCounts: Uint32Array;
  /** Per branch b: its end nodes branchEnds[2b], branchEnds[2b + 1] (both of degree ≠ 2). */
  branchEnds: Uint32Array;
  /**
   * Per branch: the end-to-end distance the shape divides — straight line; angle 2·arcsin(chord/2) on the unit sphere;
   * the length of the summed minimum-image edge displacements in a periodic box.
   */
  branchEndToEnd: Float64Array;
  /** MiSTree's histograms of d, l, b and √(1 − s). */
  histograms: MstHistograms;
  /** Where the tree came from. */
  backend: 'gpu' | 'cpu' | 'given';
  /** Per-phase wall times in ms: the EMST's `emst::…` labels, `stats::…` and `stats::total`. */
  timings: Record<string, number>;
}

/**
 * MiSTree's MST statistics of `points` (row-major n × dim) on the exact EMST (computed unless `options.emst` is
 * given). Degenerate input is valid: n = 0 or 1 gives no edges, n = 2 one edge and no branch.
 *
 * @throws InputError for invalid points or options, GpuUnavailableError for `backend: 'gpu'` without a GPU,
 *   AbortError when `signal` aborts.
 */
export async function mstStats(points: Float32Array | Float64Array, options: MstStatsOptions): Promise<MstStats> {
  const t0 = performance.now();
  const input = validateStatsInput(points, options);
  const { n, box, normalise } = input;
  const timings: Record<string, number> = {};
  const lap = (label: string, since: number): number => {
    const now = performance.now();
    timings[label] = now - since;
    return now;
  };
  const checkAbort = (): void => {
    if (options.signal?.aborted) throw new AbortError('mstStats was aborted.');
  };
  checkAbort();

  let t = performance.now();
  let coords: Float32Array | Float64Array = points;
  let dim = options.dim;
  const celestial = input.coords === 'radec';
  const onUnitSphere = celestial && dim === 2;
  if (celestial) {
    coords = celestialToCartesian(points, dim);
    dim = 3;
    t = lap('stats::coords', t);
  }
  // The GPU path's EMST input, checked here at the door (src/emst/validate.ts) before any device is asked for; the
  // per-coordinate check (finite, row and column in the message) and the scaling are left to the GPU where
  // validate.ts defers them (open box, no scale cut: src/emst/pointcheck.ts, after the upload; a fallback to the CPU
  // checks on the host).
  const validated =
    !options.emst && !celestial && (options.backend ?? 'auto') !== 'cpu'
      ? validateEmstInput(
          coords,
          {
            dim,
            ...(box ? { box } : {}),
            ...(options.minEdgeLength ? { minEdgeLength: options.minEdgeLength } : {}),
          },
          { deferCoordinates: true },
        )
      : null;
  const gpuInput =
    validated === null ? null : validated.deferred ? { input: validated, exponent: 0 } : scaleInput(validated);
  if (gpuInput) t = lap('stats::scale', t);

  let sources: Uint32Array = new Uint32Array(0);
  let targets: Uint32Array = new Uint32Array(0);
  let backend: MstStats['backend'] = 'cpu';
  type OnGpu = GpuBranchesResult & { numBranches: number; numEdges: number; histograms: MstHistograms | null };
  let onGpu: OnGpu | null = null;
  const arrays = options.arrays ?? true;
  // The GPU path runs on points scaled by a power of two (src/emst/scale.ts); its lengths come back times this.
  let unscale = 1;
  if (options.emst) {
    ({ sources, targets } = options.emst);
    backend = 'given';
  } else {
    const progress = progressSpan(options.onProgress, 0, 0.9);
    const requested = options.backend ?? 'auto';
    // The tree through emst() (the statistics then on the CPU, in float64).
    const viaEmst = async (on: 'gpu' | 'cpu', ctx?: GpuContext): Promise<void> => {
      const emstOptions: EmstOptions = {
        dim,
        backend: on,
        gpu: ctx,
        signal: options.signal,
        threads: options.threads,
        onProgress: progress,
        ...(box ? { box } : {}),
        ...(options.minEdgeLength ? { minEdgeLength: options.minEdgeLength } : {}),
      };
      const tree = await emstFor('mstStats', coords, emstOptions);
      ({ sources, targets, backend } = tree);
      Object.assign(timings, tree.timings);
    };
    const gpuPath = async (): Promise<void> => {
      const ctx = options.gpu ?? (await createGpuContext({ hardwareOnly: requested === 'auto' }));
      try {
        // Before anything is allocated: an n above what the device's bindings take is a one-line InputError.
        const task = { kind: celestial ? 'emst' : 'mstStats' } as const;
        checkCapacity(ctx.limits, n, dim, task, ctx.deviceLimits.maxStorageBufferBindingSize);
        // On the unit sphere (RA/Dec) chords are short differences of coordinates near 1: float32 would lose them,
        // so the statistics stay on the CPU in float64 there.
        if (celestial) return await viaEmst('gpu', ctx);
        // The tree and the statistics on the GPU, the points uploaded once: emstGpu hands its buffer to the walks.
        const { input, exponent } = gpuInput!;
        unscale = 2 ** -exponent;
        // Where the GPU checked and scaled the points itself, its exponent arrives with the tree (before the statistics).
        const scaledBy = (gpuExponent: number) => {
          unscale = 2 ** -(exponent + gpuExponent);
        };
        let statsMs = 0;
        const period = input.period ?? undefined;
        // The histograms are counted on the GPU unless the shape bins depend on the shapes (then on the host).
        const gpuHistograms = gpuCanBinShapes(options.bins);
        // The statistics' kernels compile while the EMST runs; they are awaited when its tree is ready.
        const kernels = Promise.all([
          GpuBranches.create(ctx, Math.max(n, 1), dim, period !== undefined),
          GpuBinning.create(ctx),
        ]);
        const statsOnGpu = async (pointsBuffer: GPUBuffer, edges: GpuEdges, m: number, readArrays: boolean) => {
          checkAbort();
          const s = performance.now();
          const [walker, binning] = await kernels;
          lap('stats::setup', s);
          const histograms = gpuHistograms
            ? { binning, bins: options.bins, normalised: normalise, scale: unscale }
            : undefined;
          const r = await walker.run(pointsBuffer, n, edges, m, { period, arrays: readArrays, histograms, timings });
          onGpu = { ...r, numEdges: m };
          statsMs = performance.now() - s;
        };
        const upload = (name: string, a: Uint32Array) =>
          ctx.upload(`stats::${name}`, a.length > 0 ? a : new Uint32Array(1));
        let tree: Awaited<ReturnType<typeof emstGpu>>;
        try {
          tree = await emstGpu(input.upload, dim, {
            period: input.period,
            minEdgeLength: input.minEdgeLength,
            ctx,
            onProgress: progress,
            signal: options.signal,
            checkFrom: input.deferred ? coords : undefined,
            ...(arrays || !gpuHistograms
              ? {
                  // The canonical edge list comes back (the arrays name its edges); the statistics take it up again.
                  after: async (pointsBuffer: GPUBuffer, edges: EdgeList, gpuExponent: number) => {
                    scaledBy(gpuExponent);
                    const bufs = [upload('sources', edges.sources), upload('targets', edges.targets)];
                    try {
                      await statsOnGpu(
                        pointsBuffer,
                        { sources: bufs[0], targets: bufs[1] },
                        edges.sources.length,
                        true,
                      );
                    } finally {
                      for (const b of bufs) b.destroy();
                    }
                  },
                }
              : {
                  // The tree stays on the GPU: only the histograms and the counts are read back.
                  afterGpu: (
                    pointsBuffer: GPUBuffer,
                    edges: { records: GPUBuffer; count: number },
                    _ctx: GpuContext,
                    gpuExponent: number,
                  ) => {
                    scaledBy(gpuExponent);
                    return statsOnGpu(pointsBuffer, { records: edges.records }, edges.count, false);
                  },
                }),
          });
        } finally {
          const made = await kernels.catch(() => null);
          made?.forEach((x) => x.destroy());
        }
        ({ sources, targets } = tree);
        backend = 'gpu';
        Object.assign(timings, tree.timings);
        // The phases, not their sub-phases (`emst::readback.sort` is part of `emst::readback`).
        timings['emst::total'] = Object.entries(tree.timings).reduce((a, [k, v]) => (k.includes('.') ? a : a + v), 0);
        timings['stats::gpu'] = statsMs;
      } finally {
        if (!options.gpu) await ctx.destroy();
      }
    };
    // 'auto' without a hardware adapter, or on a device too small for the EMST, runs on the CPU (src/gpu/fallback.ts).
    await gpuElseCpu('mstStats', requested, gpuPath, () => {
      onGpu = null;
      unscale = 1;
      return viaEmst('cpu');
    });
    t = performance.now();
  }
  checkAbort();

  options.onProgress?.(0.9, 'branches');
  const geometry: Geometry = { coords, dim, box };
  let degree: Uint32Array;
  let lengths: Float64Array;
  let branches: Branches;
  // Assigned inside emstGpu's callback, which TypeScript's narrowing does not follow.
  const g = onGpu as OnGpu | null;
  if (g) {
    degree = g.degree;
    lengths = Float64Array.from(g.edgeLengths, (x) => x * unscale);
    branches = {
      lengths: Float64Array.from(g.lengths, (x) => x * unscale),
      edgeCounts: g.edgeCounts,
      ends: g.ends,
      endToEnd: Float64Array.from(g.endToEnd, (x) => x * unscale),
    };
    t = lap('stats::float64', t);
  } else {
    const links = nodeLinks(n, sources, targets);
    degree = degreesOf(links);
    t = lap('stats::degree', t);
    lengths = edgeLengths(geometry, sources, targets);
    t = lap('stats::edgeLengths', t);
    checkAbort();
    branches = findBranches(sources, targets, links, lengths, geometry);
    t = lap('stats::branches', t);
  }
  const shapes = new Float64Array(branches.lengths.length);
  const endToEnd = branches.endToEnd;
  for (let b = 0; b < shapes.length; b++) {
    if (onUnitSphere) endToEnd[b] = chordToAngle(endToEnd[b]);
    shapes[b] = endToEnd[b] / branches.lengths[b];
  }
  t = lap('stats::shapes', t);
  options.onProgress?.(0.95, 'histograms');
  const histograms =
    g?.histograms ??
    mstHistograms(
      { degree, edgeLengths: lengths, branchLengths: branches.lengths, branchShapes: shapes },
      options.bins,
      input.normalise,
    );
  if (!g?.histograms) lap('stats::histograms', t);
  timings['stats::total'] = performance.now() - t0;
  options.onProgress?.(1, 'histograms');
  const numEdges = g ? g.numEdges : sources.length;
  const numBranches = g ? g.numBranches : branches.lengths.length;
  if (!arrays) {
    const none = { u: new Uint32Array(0), f: new Float64Array(0) };
    return {
      n,
      numEdges,
      numBranches,
      degree: none.u,
      edgeSources: none.u,
      edgeTargets: none.u,
      edgeLengths: none.f,
      branchLengths: none.f,
      branchShapes: none.f,
      branchEdgeCounts: none.u,
      branchEnds: none.u,
      branchEndToEnd: none.f,
      histograms,
      backend,
      timings,
    };
  }
  return {
    n,
    numEdges,
    numBranches,
    degree,
    edgeSources: sources,
    edgeTargets: targets,
    edgeLengths: lengths,
    branchLengths: branches.lengths,
    branchShapes: shapes,
    branchEdgeCounts: branches.edgeCounts,
    branchEnds: branches.ends,
    branchEndToEnd: endToEnd,
    histograms,
    backend,
    timings,
  };
}
