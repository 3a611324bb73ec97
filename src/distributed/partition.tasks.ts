/**
 * The partitioned EMST's worker side (issue 20 §2): one pure handler per task kind, run by a partition's owner on
 * its points (src/distributed/types.ts says what "pure" allows). Every message carries `meta.exponent`, the run's
 * power-of-two scale (src/emst/scale.ts): coordinates travel unscaled, keys travel in the scaled key space of the
 * single-process run. Rows are the partition's rows (ascending global id); NONE = 0xffffffff.
 *
 *   kind       request meta / arrays                              reply arrays
 *   rows       rows u32 q                                         points f32 q × dim (unscaled)
 *   tree       minSamples, alpha; cells f32, cellOwner u32,       sources, targets u32 (rows), keys f32, ids u32 n,
 *              core2 f32 n (mutual reachability only)             lower f32 n, cell u8 n, cellBoxes f32 c × 2·dim;
 *                                                                 meta.timings (ms by label)
 *   nearest    alpha, mr; points f32 q × dim, gid u32 q,          row u32 q (NONE: no edge ≤ bound), key f32 q (the
 *              comp u32 q, bound f32 q, core2 f32 q (mr),         edge's key; for NONE a lower bound on the key to
 *              rows u32 r (the rows that may answer; absent:      every listed row outside comp)
 *              all), labels u8 or u32 r (absent: all 0),
 *              ownCore2 f32 r (mr)
 *   coreBound  m; cells, cellOwner                                core2 f32 n (this partition only), lower f32 n
 *   knn        m; points f32 q × dim                              keys f32 q × m ascending (+∞ padded)
 *   core       m; rows u32 q, keys f32 q × m (the halo lists)     core2 f32 n (over all points)
 *   pair       partner q (this partition's id: alone), within     lo, hi u32 (global ids, lo < hi), keys f32: the
 *              [this, q's] (which partitions' inner edges to      pair's MST edges between the two and those within
 *              keep), minSamples, alpha; core2 f32 n, core2q      a kept partition, in the canonical (key, lo, hi)
 *              f32 (mutual reachability only)                     order; side u8 per edge (SIDE_* in
 *                                                                 partition.pairs.ts: which partition holds lo, hi)
 *   forest     minSamples, alpha; terminals u32 t (global ids      lo, hi, keys: the partition's MST edges proven
 *              with crossing edges, ascending), floor f32 t        global MST edges (contractForest), canonical
 *              (each one's lightest crossing key), core2 f32 n     order; openLo, openHi, openKeys, openLa, openLb:
 *              (mutual reachability only)                          the others, with their ends' contracted labels
 *                                                                 (global ids); label u32 t per terminal
 *
 * `cells`: every partition's cell boxes (PartitionInfo.cells, concatenated), `cellOwner` the partition of each;
 * `lower`: per row, a lower bound on its key to any other partition's point (PartitionIndex.lowerBounds).
 * `cell`/`cellBoxes`: a finer cover of the partition by CUT_CELLS BVH subtrees (scaled boxes) and each row's subtree:
 *   the coordinator skips a subtree once all its points are in the asker's component.
 * `labels`/`comp`: component codes — a listed row is a candidate for query q exactly when its label ≠ comp[q].
 *
 * The local tree ('tree') is emst() on the scaled points with the owner's backend (Euclidean), or with the true
 * cores the CPU backend's Borůvka (mutual reachability: boruvka.cpu.ts `core2`; the GPU backend has no such hook
 * yet). Its keys are recomputed from the coordinates with distance.cpu.ts's arithmetic, the single-process keys.
 * (emst() scales the partition's points again only when their largest |coordinate| is below 2^−32 of the whole set's,
 * scale.ts; that exact rescaling could only differ from the single-process run where its squares underflow.)
 */
import { canonicalByIdThreaded } from './sort.threads.js';
import { localOrderThreaded } from './order.threads.js';
import { InputError } from '../errors.js';
import { emst, emstFor } from '../emst/emst.js';
import { emstCpuAsync } from '../emst/boruvka.cpu.js';
import { inverseAlphaSquared, reachabilityKey } from '../emst/distance.cpu.js';
import { squaredDistance } from '../knn/keys.cpu.js';
import { NONE } from '../bvh/layout.js';
import { CUT_CELLS, EXCLUDED, PartitionIndex, scaleRows } from './partition.search.cpu.js';
import {
  canonicalById,
  contractForestAsync,
  contractForestThreaded,
  type ContractStats,
  forestRecords,
  SIDE_LO_P,
  SIDE_LO_Q,
  SIDE_P,
  SIDE_Q,
} from './partition.pairs.js';
import { turn } from '../host/lanes.js';
import { withScratch, type Scratch, type SlotSpec } from './scratch.js';
import {
  crossingEdgesThreaded,
  forestKeysThreaded,
  forestReply,
  forestReplyThreaded,
  shared,
  taskThreading,
  unionRows,
  unionThreaded,
} from './tasks.threads.js';
import { heldThreads, resolveThreads } from '../host/threads.js';
import { MAX_DEFAULT_THREADS } from '../host/thresholds.js';
import type { PartitionData, PartitionTask, PartitionTaskKind, TaskArray, TaskEnv, TaskMessage } from './types.js';

/** The handlers by kind (the table above). */
/**
 * The most host threads a task's own passes (a pair's crossing edges, a forest's keys and reply) take by default,
 * less where a worker's share of its host is less (worker.host.ts: cores / workers on the host); `--threads`
 * overrides both. 16, not emst()'s 8: one worker alone ran its forests' threaded passes ~1.2 s a forest
 * faster with 16 (H100 x2 host, 2·10^8 points, k = 4, session 14: 127.3 s against ~147 s with 8). Two workers on
 * one 32-core host with 8 each ran 69.5 s on an H200 x2 host (against 81.2 s pinned to 16 cores each with 16) but
 * 106.6 s on an H100 x2 host (session 12's with 16: 85.5 s): the hosts vary more than the thread counts do
 * (bench/RESULTS.md, issue 20, session 14).
 */
export const TASK_THREADS_MAX = 16;

/**
 * The host threads of a task's own threaded pass over `m` items: `--threads`, else min(cores, the worker's share of
 * its host (TaskEnv.hostThreads: worker.host.ts), TASK_THREADS_MAX) from resolveThreads' size on.
 */
const passThreads = (env: TaskEnv, m: number): Promise<number> =>
  resolveThreads(env.threads, m, env.hostThreads ?? TASK_THREADS_MAX);

/**
 * emst()'s `threads` for a task's MST of `n` points (the CPU backend's; the GPU's ignores it): `--threads`, else
 * emst()'s own default (min(cores, 8) from its size on) held to the worker's share of its host where that is less.
 */
async function mstThreads(env: TaskEnv, n: number): Promise<number | undefined> {
  return env.threads ?? heldThreads(env.hostThreads, n, MAX_DEFAULT_THREADS);
}

export const PARTITION_TASKS: Record<PartitionTaskKind, PartitionTask> = {
  async rows(p, msg) {
    const rows = array(msg, 'rows', Uint32Array);
    const out = new Float32Array(rows.length * p.dim);
    for (let q = 0; q < rows.length; q++) {
      const r = row(p, rows[q]);
      out.set(p.points.subarray(r * p.dim, r * p.dim + p.dim), q * p.dim);
    }
    return { meta: {}, arrays: { points: out } };
  },

  async tree(p, msg, env) {
    const t0 = performance.now();
    const index = PartitionIndex.of(p, exponentOf(msg));
    const { dim, n } = index;
    const minSamples = num(msg, 'minSamples');
    const alpha = num(msg, 'alpha');
    const mr = minSamples > 1 || alpha !== 1;
    const core2 = mr ? sized(array(msg, 'core2', Float32Array), n, 'core2') : null;
    // The local tree starts first: on the GPU it runs while this thread builds the CPU index below.
    const metric = { kind: 'mutual-reachability' as const, minSamples, alpha };
    const threads = await mstThreads(env, n);
    const treeP =
      core2 === null
        ? emst(index.points, { dim, backend: env.backend, threads, gpu: env.gpu })
        : emstCpuAsync(index.points, dim, { metric, threads, core2 });
    treeP.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const t1 = performance.now();
    const lower = index.lowerBounds(array(msg, 'cells', Float32Array), array(msg, 'cellOwner', Uint32Array), p.id);
    const { cell, cellBoxes } = index.cut(CUT_CELLS);
    const t2 = performance.now();
    const tree = await treeP;
    const t3 = performance.now();
    const ia2 = inverseAlphaSquared(alpha);
    const m = tree.sources.length;
    const keys = new Float32Array(m);
    for (let e = 0; e < m; e++) {
      const u = tree.sources[e];
      const v = tree.targets[e];
      const d = squaredDistance(index.points, dim, u, v);
      keys[e] = core2 === null ? d : reachabilityKey(d, core2[u], core2[v], ia2);
    }
    const t4 = performance.now();
    return {
      // Per-step wall times (ms) on the owner (treeWait: the local tree after the index), and the tree's own phases
      // under emst's labels.
      meta: {
        timings: {
          'partition::index': t2 - t1,
          'partition::treeWait': t3 - t2,
          'partition::keys': t4 - t3,
          'partition::total': t4 - t0,
          ...('timings' in tree && tree.timings ? tree.timings : {}),
        },
      },
      arrays: {
        sources: tree.sources.slice(),
        targets: tree.targets.slice(),
        keys,
        ids: p.ids,
        lower,
        cell,
        cellBoxes,
      },
    };
  },

  async nearest(p, msg) {
    const index = PartitionIndex.of(p, exponentOf(msg));
    const { dim, n } = index;
    const mr = msg.meta.mr === true;
    const points = array(msg, 'points', Float32Array);
    const q = points.length / dim;
    const gid = sized(array(msg, 'gid', Uint32Array), q, 'gid');
    const comp = sized(array(msg, 'comp', Uint32Array), q, 'comp');
    const bound = sized(array(msg, 'bound', Float32Array), q, 'bound');
    const core2 = mr ? sized(array(msg, 'core2', Float32Array), q, 'core2') : null;
    // The rows that may answer, and their coded labels (partition.rounds.ts, codedLabels): the other rows are left
    // out (EXCLUDED); labels absent = all 0; a Uint8Array is widened.
    const rows = msg.arrays.rows === undefined ? null : array(msg, 'rows', Uint32Array);
    const given = msg.arrays.labels;
    if (given !== undefined && !(given instanceof Uint8Array || given instanceof Uint32Array)) {
      throw new InputError(`Expected arrays.labels to be a Uint8Array or Uint32Array, got ${given.constructor.name}.`);
    }
    if (rows === null) {
      // Every row listed.
      const labels = given === undefined ? new Uint32Array(n) : Uint32Array.from(sized(given, n, 'labels'));
      const ownCore2 = mr ? sized(array(msg, 'ownCore2', Float32Array), n, 'ownCore2') : null;
      return answerNearest(index, labels, ownCore2, msg, { points, gid, comp, bound, core2 });
    }
    if (given !== undefined) sized(given, rows.length, 'labels');
    const labels = new Uint32Array(n).fill(EXCLUDED);
    rows.forEach((r, t) => (labels[row(p, r)] = given === undefined ? 0 : given[t]));
    let ownCore2: Float32Array | null = null;
    if (mr) {
      const listed = sized(array(msg, 'ownCore2', Float32Array), rows.length, 'ownCore2');
      ownCore2 = new Float32Array(n).fill(Infinity);
      rows.forEach((r, t) => (ownCore2![r] = listed[t]));
    }
    return answerNearest(index, labels, ownCore2, msg, { points, gid, comp, bound, core2 });
  },

  async coreBound(p, msg) {
    const index = PartitionIndex.of(p, exponentOf(msg));
    const core2 = index.cores(num(msg, 'm'));
    const lower = index.lowerBounds(array(msg, 'cells', Float32Array), array(msg, 'cellOwner', Uint32Array), p.id);
    return { meta: {}, arrays: { core2, lower } };
  },

  async knn(p, msg) {
    const index = PartitionIndex.of(p, exponentOf(msg));
    const m = num(msg, 'm');
    const points = scaleRows(array(msg, 'points', Float32Array), index.exponent);
    const q = points.length / index.dim;
    const keys = new Float32Array(q * m);
    const x = new Float64Array(index.dim);
    for (let i = 0; i < q; i++) {
      for (let d = 0; d < index.dim; d++) x[d] = points[i * index.dim + d];
      index.knnKeys(x, m, keys, i * m);
    }
    return { meta: {}, arrays: { keys } };
  },

  async core(p, msg) {
    const index = PartitionIndex.of(p, exponentOf(msg));
    const m = num(msg, 'm');
    const rows = array(msg, 'rows', Uint32Array);
    for (const r of rows) row(p, r);
    const keys = sized(array(msg, 'keys', Float32Array), rows.length * m, 'keys');
    return { meta: {}, arrays: { core2: index.cores(m, { rows, keys }) } };
  },

  pair: (p, msg, env, partner) => withScratch((scratch) => pairTask(scratch, p, msg, env, partner)),
  forest: (p, msg, env, partner) => withScratch((scratch) => forestTask(scratch, p, msg, env, partner)),
};

/** Rows of the pair's union between turns of the event loop (any count ≥ 1; tests make it small), and turns taken. */
export const unionPieces = { rows: 1 << 21, turns: 0 };

/**
 * The scratch slots a worker's 'pair' and 'forest' tasks take for a run of n points in k partitions (a pair holds at
 * most two partitions of ⌈n / k⌉ points; the Morton split's partitions differ by one point at most), under the names
 * and sharing the tasks use below: what prepareRun takes before the first task. `gpu`: the GPU path's
 * edge arrays and the forest's threaded passes (the CPU backend returns fresh edge arrays, and its forests' keys and
 * reply run on one thread).
 */
export function pairsScratchSlots(n: number, dim: number, k: number, gpu: boolean, threads: number): SlotSpec[] {
  const part = Math.ceil(n / Math.max(1, k));
  const pair = pairRows(n, k);
  const slots: SlotSpec[] = [
    { name: 'pair.ids', length: pair, shared: true },
    { name: 'pair.points', length: pair * dim, shared: true },
    { name: 'forest.records', length: 4 * part, shared: true },
  ];
  if (gpu) {
    for (const name of ['mst.sources', 'mst.targets', 'mst.weights'])
      slots.push({ name, length: pair - 1, shared: true });
    if (threads > 1 && part - 1 >= taskThreading.minEdges) {
      slots.push(
        { name: 'forest.keys', length: part - 1, shared: true },
        { name: 'forest.split', length: part - 1, shared: true },
        { name: 'forest.sharedPoints', length: part * dim, shared: true },
        { name: 'forest.sharedIds', length: part, shared: true },
      );
    }
  }
  return slots.filter((slot) => slot.length > 0);
}

/** The most rows a 'pair' task holds: two partitions of ⌈n / k⌉ points (the Morton split's differ by one at most). */
const pairRows = (n: number, k: number): number => Math.min(n, 2 * Math.ceil(n / Math.max(1, k)));

/** What prepareRun did: the bytes of scratch it took and touched, the stand-in points it warmed the GPU with. */
export interface RunPrepared {
  /** Bytes of every slot taken (touched here, or written by the warm-up's EMST). */
  bytes: number;
  /** The touching's end (ms after the start), or its error. */
  touched: number | Error;
  /** The warm-up's points and end (ms after the start), or its error; null where there was none. */
  warmed: { points: number; ms: number } | Error | null;
}

/**
 * What a worker does when told a 'pairs' run's size (worker.ts), while the coordinator reads and partitions the points:
 * takes its tasks' scratch (pairsScratchSlots, pages touched on `touchThreads` threads, so that its first tasks do not
 * take them) and — on the GPU, for a Euclidean run, where `warm` (no task in hand) — at the same time one GPU EMST of a
 * 'pair' task's size
 * (2⌈n / k⌉ points) on stand-in points, into that Scratch's pair.points and mst.* slots (emstInto: what a pair does);
 * the touching skips the mst.* slots, which the EMST's read-back writes.
 *
 * Why the EMST: a GPU worker's first pair of a run took its GPU part 0.55 s (alone) to 0.9–1.0 s (two workers on a
 * host) longer than its later pairs at 2·10^8 points and k = 4 (H200 x2 host, session 20: pair::mst 1.5–2.1 s against
 * 1.0–1.2), ~2 s at 10^9 — the GPU's buffers, their staging and the host pages under them taken at that size for the
 * first time; the worker's start-up EMST (cli/worker.ts) has 4,096 points. Made one after the other, the touching and
 * the warm-up outlasted the coordinator's 3 s front at 2·10^8 (0.6 + 2.5–2.8 s), and the first pair waited for them.
 * The stand-ins are a seeded uniform cloud (no exact duplicates: those make the GPU EMST slow), written a piece at a
 * time with a turn of the event loop between pieces; their tree is dropped (every task writes those slots before it
 * reads them).
 */
export async function prepareRun(
  n: number,
  dim: number,
  k: number,
  env: TaskEnv,
  opts: { slotThreads: number; touchThreads?: number; euclidean: boolean; warm: boolean },
): Promise<RunPrepared> {
  // The GPU path's slots (its edge arrays, the forests' threaded passes) serve a Euclidean run's tasks alone: a
  // mutual-reachability run's MSTs are the CPU backend's, which returns fresh arrays.
  const gpu = env.backend === 'gpu' && opts.euclidean;
  const slots = pairsScratchSlots(n, dim, k, gpu, opts.slotThreads);
  const pair = pairRows(n, k);
  const warm = opts.warm && gpu && env.gpu !== undefined && pair >= 2;
  const written = new Set(warm ? ['mst.sources', 'mst.targets', 'mst.weights'] : []);
  const bytes = slots.reduce((sum, slot) => sum + 4 * slot.length, 0);
  return withScratch(async (scratch) => {
    const t0 = performance.now();
    // The stand-ins' slot first (its pages taken on the threads: 0.5 s of page faults on this thread otherwise at
    // 10^8 3D points), then the other slots beside the warm-up.
    const head = warm ? slots.filter((slot) => slot.name === 'pair.points') : [];
    const headTouched = scratch.prepare(head, opts.touchThreads);
    const touching = headTouched.then(() =>
      scratch.prepare(
        slots.filter((slot) => !written.has(slot.name) && !head.includes(slot)),
        opts.touchThreads,
      ),
    );
    const warming = warm ? headTouched.then(() => warmPair(scratch, pair, dim, env)) : null;
    // Both settle before the Scratch goes back: neither may still write it when the first task takes it.
    const [touched, warmed] = await Promise.allSettled([
      touching.then(() => performance.now() - t0),
      warming?.then(() => performance.now() - t0) ?? null,
    ]);
    const errorOf = (r: PromiseRejectedResult): Error =>
      r.reason instanceof Error ? r.reason : new Error(String(r.reason));
    return {
      bytes,
      touched: touched.status === 'fulfilled' ? touched.value : errorOf(touched),
      warmed:
        warmed.status === 'rejected'
          ? errorOf(warmed)
          : warmed.value === null
            ? null
            : { points: pair, ms: warmed.value },
    };
  });
}

/** prepareRun's warm-up: `pair` stand-in points into pair.points, their EMST into the mst.* slots (emstInto). */
async function warmPair(scratch: Scratch, pair: number, dim: number, env: TaskEnv): Promise<void> {
  const points = scratch.f32('pair.points', pair * dim, true);
  let s = 0x2545f491;
  for (let i = 0; i < points.length; i += WARM_PIECE) {
    const end = Math.min(points.length, i + WARM_PIECE);
    for (let j = i; j < end; j++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      points[j] = s / 2 ** 32;
    }
    await turn();
  }
  await emstInto(scratch, points, dim, env);
}

/** Stand-in coordinates warmPair writes between two turns of the event loop. */
const WARM_PIECE = 1 << 22;

/** The 'pair' task (the table above), its per-point arrays in `scratch`. */
async function pairTask(scratch: Scratch, ...[p, msg, env, partner]: Parameters<PartitionTask>): Promise<TaskMessage> {
  const tStart = performance.now();
  const exponent = exponentOf(msg);
  const qId = num(msg, 'partner');
  const alone = qId === p.id;
  const q = alone ? null : await partner(qId);
  if (q !== null && q.dim !== p.dim) {
    throw new InputError(`Expected partner partition ${qId} to have dim=${p.dim}, got ${q.dim}.`);
  }
  const within = msg.meta.within;
  if (!Array.isArray(within) || within.length !== 2 || within.some((w) => typeof w !== 'boolean')) {
    throw new InputError(`Expected meta.within to be two booleans in the 'pair' task's message, got ${within}.`);
  }
  const [keepP, keepQ] = within as boolean[];
  const minSamples = num(msg, 'minSamples');
  const alpha = num(msg, 'alpha');
  const mr = minSamples > 1 || alpha !== 1;
  const dim = p.dim;
  const np = p.ids.length;
  const nq = q === null ? 0 : q.ids.length;
  const core2p = mr ? sized(array(msg, 'core2', Float32Array), np, 'core2') : null;
  const core2q = mr && q !== null ? sized(array(msg, 'core2q', Float32Array), nq, 'core2q') : null;
  // The union's rows in ascending global id (both lists ascend): a tree over them, mapped back, keeps the global
  // (key, min id, max id) tie order. Bit r of inP: 1 where union row r is p's (a bit a row: the kept-edge loop below
  // reads it at random, and 10^8 rows' bits, 12.5 MB, stay in the host's last-level cache where bytes did not).
  // Per-point arrays are the worker's scratch (scratch.ts: no fresh pages per task), in shared memory for the
  // union's threads (the GPU's upload copies the points chunk by chunk as from any array: tasks.threads.ts).
  const n = np + nq;
  const pIds = p.ids;
  const pPoints = p.points;
  // (A pair with itself merges p with nothing: every row is p's.)
  const qIds = q === null ? pIds.subarray(0, 0) : q.ids;
  const qPoints = q === null ? pPoints.subarray(0, 0) : q.points;
  const threads = n >= taskThreading.minRows && shared(pIds, pPoints, qIds, qPoints) ? await passThreads(env, n) : 1;
  // The message's cores are not in shared memory: copied there for the threads (4 bytes a row; mutual reachability
  // only, whose tree on the CPU takes far longer than its union).
  const toThreads = (a: Float32Array | null) => (a === null || threads < 2 ? a : sharedCopy(a));
  const inP = scratch.u32('pair.inP', (n + 31) >>> 5, true);
  const unionIds = scratch.u32('pair.ids', n, true);
  const scaled = scratch.f32('pair.points', n * dim, true);
  const core2 = mr ? new Float32Array(threads > 1 ? new SharedArrayBuffer(4 * n) : new ArrayBuffer(4 * n)) : null;
  const union = {
    pIds,
    pPoints,
    qIds,
    qPoints,
    dim,
    scale: 2 ** exponent,
    core2p: toThreads(core2p),
    core2q: toThreads(core2q),
    core2,
    ids: unionIds,
    points: scaled,
    bits: inP,
  };
  // On the host's threads where the partitions were read into shared memory (worker.cache.ts ObjectCache), split along the
  // merge path (tasks.threads.ts unionThreaded), this thread waiting; else here in pieces of unionPieces.rows rows
  // with a turn of the event loop between them: the worker's partition reads (its prefetch, nats.ts) stream on this
  // thread, and one pass over 10^8 rows held them for 3.5–7 s (session 12, H100 x2: the next pair then waited for its
  // partner's read).
  if (!(await unionThreaded(threads, union, n))) {
    const piece = Math.max(1, Math.floor(unionPieces.rows));
    let at = { a: 0, b: 0 };
    for (let start = 0; start < n; start += piece) {
      if (start > 0) {
        unionPieces.turns++;
        await turn();
      }
      at = unionRows({ ...union, ...at, start, end: Math.min(n, start + piece) });
    }
  }
  const t0 = performance.now();
  const tree = await taskTree(scratch, scaled, n, dim, env, core2, minSamples, alpha);
  const t1 = performance.now();
  // Kept: the edges between the two partitions, and those within a partition asked for; keys recomputed with
  // distance.cpu.ts's arithmetic (the single-process keys). emst()'s edges have sources < targets.
  const ia2 = inverseAlphaSquared(alpha);
  const S = tree.sources;
  const T = tree.targets;
  const m = S.length;
  // Grown as edges are kept (the crossing edges are a few per cent of m; 10^7–10^8 zeroed entries per pair are not).
  let lo = new Uint32Array(Math.min(m, 1024));
  let hi = new Uint32Array(lo.length);
  let keys = new Float32Array(lo.length);
  let sides = new Uint8Array(lo.length);
  let kept = 0;
  const keepAny = keepP || keepQ;
  // The crossing edges' numbers found on the host's threads (tasks.threads.ts: the GPU path's edges are in shared
  // memory), then only those visited here; else every edge.
  const crossing =
    !keepAny && m >= taskThreading.minEdges
      ? await crossingEdgesThreaded(await passThreads(env, m), { bits: inP, sources: S, targets: T }, m)
      : null;
  const visits = crossing === null ? m : crossing.length;
  for (let i = 0; i < visits; i++) {
    const e = crossing === null ? i : crossing[i];
    const s = S[e];
    const t = T[e];
    const sp = (inP[s >>> 5] >>> (s & 31)) & 1;
    const tp = (inP[t >>> 5] >>> (t & 31)) & 1;
    if (sp === tp && !(keepAny && (sp === 1 ? keepP : keepQ))) continue;
    if (kept === lo.length) {
      const grow = Math.min(m, 2 * kept);
      lo = growTo(lo, grow);
      hi = growTo(hi, grow);
      keys = growTo(keys, grow);
      sides = growTo(sides, grow);
    }
    const d = squaredDistance(scaled, dim, s, t);
    keys[kept] = core2 === null ? d : reachabilityKey(d, core2[s], core2[t], ia2);
    // Union rows ascend with the global ids.
    const l = s < t ? s : t;
    const h = s < t ? t : s;
    lo[kept] = unionIds[l];
    hi[kept] = unionIds[h];
    const lp = l === s ? sp : tp;
    sides[kept++] = sp === tp ? (sp === 1 ? SIDE_P : SIDE_Q) : lp === 1 ? SIDE_LO_P : SIDE_LO_Q;
  }
  // In the canonical order (emst()'s order by weight moves only equal weights with unequal keys).
  const sorted = canonicalById(
    lo.subarray(0, kept),
    hi.subarray(0, kept),
    keys.subarray(0, kept),
    sides.subarray(0, kept),
    true,
  );
  return {
    meta: {
      timings: {
        'pair::union': t0 - tStart,
        'pair::mst': t1 - t0,
        'pair::keep': performance.now() - t1,
        'pair::total': performance.now() - tStart,
      },
    },
    arrays: { lo: sorted.lo, hi: sorted.hi, keys: sorted.keys, side: sorted.side! },
  };
}

/** The 'forest' task (the table above), its per-point arrays in `scratch`. */
async function forestTask(scratch: Scratch, ...[p, msg, env]: Parameters<PartitionTask>): Promise<TaskMessage> {
  const tStart = performance.now();
  const exponent = exponentOf(msg);
  const minSamples = num(msg, 'minSamples');
  const alpha = num(msg, 'alpha');
  const mr = minSamples > 1 || alpha !== 1;
  const { dim, ids } = p;
  const n = ids.length;
  const core2 = mr ? sized(array(msg, 'core2', Float32Array), n, 'core2') : null;
  const terminals = array(msg, 'terminals', Uint32Array);
  const floorIn = sized(array(msg, 'floor', Float32Array), terminals.length, 'floor');
  // Each terminal's row (ids ascend: a binary search) and its floor: no edge from it to another partition is
  // lighter (the lightest of its pairs' crossing edges). The floors go straight into contractForest's records.
  const records = forestRecords(n, scratch.u32('forest.records', 4 * n, true));
  const least = new Float32Array(records.buffer, records.byteOffset, 4 * n);
  const termRow = new Uint32Array(terminals.length);
  for (let t = 0; t < terminals.length; t++) {
    const g = terminals[t];
    let a = 0;
    let b = n;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (ids[mid] < g) a = mid + 1;
      else b = mid;
    }
    if (a >= n || ids[a] !== g) throw new InputError(`Expected terminal ${g} to be a point of partition ${p.id}.`);
    termRow[t] = a;
  }
  let scaled = p.points;
  if (exponent !== 0) {
    scaled = scratch.f32('forest.points', n * dim);
    const f = 2 ** exponent;
    for (let i = 0; i < n * dim; i++) scaled[i] = p.points[i] * f;
  }
  const t0 = performance.now();
  const tree = await taskTree(scratch, scaled, n, dim, env, core2, minSamples, alpha);
  const t1 = performance.now();
  // emst()'s edges have sources < targets: they are the (lo, hi) rows as they are, sorted in place below (the
  // arrays are the worker's scratch on the GPU path, fresh ones on the CPU's).
  const ia2 = inverseAlphaSquared(alpha);
  const loRow = tree.sources;
  const hiRow = tree.targets;
  const m = loRow.length;
  // Euclidean keys on the host's threads where the edges are in shared memory (the GPU path's scratch): the points
  // copied into shared memory for them (16 bytes a row with the ids below, one sequential pass).
  const threads = core2 === null && m >= taskThreading.minEdges ? await passThreads(env, m) : 1;
  const onThreads = threads > 1 && shared(loRow, hiRow);
  const keys = scratch.f32('forest.keys', m, onThreads);
  let keyed = false;
  // (The partition's own points where they are in shared memory already: the worker reads them there.)
  let points = scaled;
  if (onThreads) {
    if (!shared(points)) {
      points = scratch.f32('forest.sharedPoints', n * dim, true);
      points.set(scaled);
    }
    keyed = await forestKeysThreaded(threads, { points, dim, lo: loRow, hi: hiRow, keys }, m);
  }
  if (!keyed) {
    for (let e = 0; e < m; e++) {
      const s = loRow[e];
      const t = hiRow[e];
      const d = squaredDistance(scaled, dim, s, t);
      keys[e] = core2 === null ? d : reachabilityKey(d, core2[s], core2[t], ia2);
    }
  }
  // Rows ascend with the global ids: the canonical order by rows is the order by ids.
  const t2 = performance.now();
  const sorted = await canonicalByIdThreaded(threads, { lo: loRow, hi: hiRow, keys });
  const t3 = performance.now();
  // The rows renumbered in a coarse Morton order for the contraction (order.threads.ts: a partition's rows follow the
  // input's order, which the contraction's row blocks and ranges cannot use), after the canonical sort (which ties on
  // the old rows: the ids' order); rowIds[row] the global id from here on, the floors at their rows' new numbers.
  // (On threads the ids in shared memory: the renumbering and the reply read them there.)
  let rowIds = ids;
  let floorRow = termRow;
  let ordered = false;
  const orderTimes: Record<string, number> = {};
  if (onThreads) {
    if (!shared(rowIds)) {
      rowIds = scratch.u32('forest.sharedIds', n, true);
      rowIds.set(ids);
    }
    const slots = {
      cell: scratch.u32('forest.order.cell', n, true),
      rank: scratch.u32('forest.order.rank', n, true),
      newIds: scratch.u32('forest.order.ids', n, true),
    };
    const edges = { lo: sorted.lo, hi: sorted.hi };
    const order = await localOrderThreaded(threads, { points, dim, ids: rowIds, ...edges, ...slots }, n, m, orderTimes);
    if (order !== null) {
      ordered = true;
      rowIds = order.ids;
      floorRow = termRow.map((a) => order.rank[a]);
    }
  }
  for (let t = 0; t < floorRow.length; t++) {
    const a = floorRow[t];
    if (floorIn[t] < least[4 * a + 1]) least[4 * a + 1] = floorIn[t];
  }
  const t3b = performance.now();
  // (Turns of the event loop between slices: the presence beats and the task's heartbeats go on.)
  // On the host's threads by the terminals' Steiner tree where the arrays are shared, else the one-thread loop.
  const split = scratch.u32('forest.split', m, onThreads);
  const steiner: ContractStats = {
    steinerEdges: -1,
    degree: 0,
    peel: 0,
    count: 0,
    gather: 0,
    kruskal: 0,
    complement: 0,
  };
  const { safe, open, label } =
    (onThreads ? await contractForestThreaded(threads, sorted, n, records, split, floorRow, steiner) : null) ??
    (await contractForestAsync(sorted, n, records, split));
  const t4 = performance.now();
  // The replies in global ids (10^7–10^8 edges per partition: the proven ones on threads as the keys); labels: the
  // proven components' roots (the contraction's `label`: records' word 2, or on threads the Steiner rows' own records).
  const ms = safe.length;
  const mo = open.length;
  const bytes = (length: number) => (onThreads ? new SharedArrayBuffer(4 * length) : new ArrayBuffer(4 * length));
  const lo = new Uint32Array(bytes(ms));
  const hi = new Uint32Array(bytes(ms));
  const safeKeys = new Float32Array(bytes(ms));
  const L = sorted.lo;
  const H = sorted.hi;
  const K = sorted.keys;
  const proven = { rowLo: L, rowHi: H, sortedKeys: K, safe, lo, hi, keys: safeKeys };
  const replied = onThreads && (await forestReplyThreaded(threads, { ids: rowIds, ...proven }, ms));
  if (!replied) forestReply({ ids: rowIds, ...proven, start: 0, end: ms });
  const openLo = new Uint32Array(mo);
  const openHi = new Uint32Array(mo);
  const openKeys = new Float32Array(mo);
  const openLa = new Uint32Array(mo);
  const openLb = new Uint32Array(mo);
  for (let i = 0; i < mo; i++) {
    const e = open[i];
    openLo[i] = rowIds[L[e]];
    openHi[i] = rowIds[H[e]];
    openKeys[i] = K[e];
    openLa[i] = rowIds[label(L[e])];
    openLb[i] = rowIds[label(H[e])];
  }
  const termLabel = new Uint32Array(floorRow.length);
  for (let t = 0; t < floorRow.length; t++) termLabel[t] = rowIds[label(floorRow[t])];
  return {
    meta: {
      timings: {
        'forest::mst': t1 - t0,
        'forest::keys': t2 - t1,
        'forest::sort': t3 - t2,
        // (The rows' renumbering, where it ran: order.threads.ts.)
        ...(ordered ? { 'forest::order': t3b - t3, ...orderTimes } : {}),
        'forest::contract': t4 - t3b,
        // (Its threaded steps, where it ran on threads: contractForestThreaded.)
        ...(steiner.steinerEdges >= 0
          ? {
              'forest::contract.degree': steiner.degree,
              'forest::contract.peel': steiner.peel,
              'forest::contract.count': steiner.count,
              'forest::contract.gather': steiner.gather,
              'forest::contract.kruskal': steiner.kruskal,
              'forest::contract.complement': steiner.complement,
            }
          : {}),
        'forest::reply': performance.now() - t4,
        'forest::total': performance.now() - tStart,
      },
      // Sizes behind the times (the worker logs them): the rows with a floor, the Steiner edges (−1: not on
      // threads), the open edges.
      counts: { 'forest::terminals': terminals.length, 'forest::steiner': steiner.steinerEdges, 'forest::open': mo },
    },
    arrays: { lo, hi, keys: safeKeys, openLo, openHi, openKeys, openLa, openLb, label: termLabel },
  };
}

/**
 * The 'pair' and 'forest' tasks' tree of their n points (scaled): none below 2 points, the Euclidean EMST by emstInto,
 * the mutual-reachability MST (core distances given) on the CPU.
 */
async function taskTree(
  scratch: Scratch,
  points: Float32Array,
  n: number,
  dim: number,
  env: Parameters<PartitionTask>[2],
  core2: Float32Array | null,
  minSamples: number,
  alpha: number,
): Promise<{ sources: Uint32Array; targets: Uint32Array }> {
  if (n < 2) return { sources: new Uint32Array(0), targets: new Uint32Array(0) };
  if (core2 === null) return emstInto(scratch, points, dim, env);
  return emstCpuAsync(points, dim, {
    metric: { kind: 'mutual-reachability', minSamples, alpha },
    threads: await mstThreads(env, n),
    core2,
  });
}

/**
 * emst() of `points` (scaled) on the task's backend, for the 'pair' and 'forest' tasks. On the GPU its edges are read
 * straight into the worker's scratch arrays (emstFor's readInto: no fresh pages, no host pass); the CPU backend
 * returns fresh arrays. The edges are valid until the next task's call.
 */
async function emstInto(
  scratch: Scratch,
  points: Float32Array,
  dim: number,
  env: Parameters<PartitionTask>[2],
): Promise<{ sources: Uint32Array; targets: Uint32Array }> {
  const m = points.length / dim - 1;
  // In shared memory: the tasks' threaded passes read them (tasks.threads.ts).
  const edges = {
    sources: scratch.u32('mst.sources', m, true),
    targets: scratch.u32('mst.targets', m, true),
    weights: scratch.f32('mst.weights', m, true),
  };
  return emstFor(
    'emst',
    points,
    { dim, backend: env.backend, threads: await mstThreads(env, m + 1), gpu: env.gpu },
    { readInto: { edges, ready: Promise.resolve() } },
  );
}

/** The 'nearest' searches, given the rows' labels and cores (EXCLUDED / +∞ for rows left out). */
function answerNearest(
  index: PartitionIndex,
  labels: Uint32Array,
  ownCore2: Float32Array | null,
  msg: TaskMessage,
  queries: {
    points: Float32Array;
    gid: Uint32Array;
    comp: Uint32Array;
    bound: Float32Array;
    core2: Float32Array | null;
  },
): TaskMessage {
  const { points, gid, comp, bound, core2 } = queries;
  const dim = index.dim;
  const q = gid.length;
  const state = index.nearestState(labels, ownCore2, inverseAlphaSquared(num(msg, 'alpha')));
  const key = new Float32Array(q);
  const rowOut = new Uint32Array(q);
  const x = new Float64Array(dim);
  const f = 2 ** index.exponent;
  for (let i = 0; i < q; i++) {
    for (let d = 0; d < dim; d++) x[d] = Math.fround(points[i * dim + d] * f);
    rowOut[i] = index.nearest(x, gid[i], comp[i], bound[i], core2 === null ? 0 : core2[i], state);
    key[i] = index.foundKey;
  }
  return { meta: {}, arrays: { key, row: rowOut } };
}

/** Runs `kind` on `p`, rejecting an unknown kind with the kinds there are. */
export function runPartitionTask(
  kind: string,
  p: PartitionData,
  msg: TaskMessage,
  env: Parameters<PartitionTask>[2],
  partner: Parameters<PartitionTask>[3],
) {
  const task = (PARTITION_TASKS as Record<string, PartitionTask | undefined>)[kind];
  if (task === undefined) {
    throw new InputError(
      `Unknown partition task '${kind}' (expected one of ${Object.keys(PARTITION_TASKS).join(', ')}).`,
    );
  }
  return task(p, msg, env, partner);
}

/** `a`'s values in a new array over a SharedArrayBuffer, or `a` where it is one's already. */
function sharedCopy(a: Float32Array): Float32Array {
  if (shared(a)) return a;
  const out = new Float32Array(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}

/** `a`'s values in a new array of `length` ≥ a.length (the rest zero). */
function growTo<T extends Uint32Array | Float32Array | Uint8Array>(a: T, length: number): T {
  const out = new (a.constructor as new (n: number) => T)(length);
  out.set(a);
  return out;
}

function exponentOf(msg: TaskMessage): number {
  return num(msg, 'exponent');
}

function num(msg: TaskMessage, name: string): number {
  const v = msg.meta[name];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new InputError(`Expected meta.${name} to be a finite number in the partition task's message, got ${v}.`);
  }
  return v;
}

function array<T extends TaskArray>(msg: TaskMessage, name: string, type: new (n: number) => T): T {
  const a = msg.arrays[name];
  if (!(a instanceof type)) {
    const got = a === undefined ? 'nothing' : a.constructor.name;
    throw new InputError(`Expected arrays.${name} to be a ${type.name} in the partition task's message, got ${got}.`);
  }
  return a;
}

function sized<T extends TaskArray>(a: T, length: number, name: string): T {
  if (a.length !== length) throw new InputError(`Expected arrays.${name} to hold ${length} values, got ${a.length}.`);
  return a;
}

function row(p: PartitionData, r: number): number {
  if (r >= p.ids.length) {
    throw new InputError(`Expected rows of partition ${p.id} below ${p.ids.length}, got ${r}.`);
  }
  return r;
}
