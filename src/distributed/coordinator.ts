/**
 * The coordinator of a partitioned EMST on NATS (issue 20, §2–§4): `treeline emst --nats` and
 * `emst(points, { dim, cluster: { url } })` (and `treeline hdbscan <file> --nats`'s MST) end here.
 *
 *   run state    KV treeline-runs[<run>]: RunState below (status, the input's fingerprint, the partitions' boxes)
 *   partitions   partitionPoints (Morton-order split, partition.ts; on worker threads: partition.threads.ts) → object
 *                store treeline-<run>, partition.<p>, uploaded beside the first tasks
 *   algorithm    partitionedEmst (partition.emst.ts) through NatsExecutor: every task goes on the work queue and
 *                its reply comes back on the worker's done note, or from the object store (nats.jobs.ts)
 *   done         the run's objects are removed; the KV entry says 'done' with the tree's size and weight
 *
 * Resume: a coordinator started again with the same run id, on the same points and options (the fingerprint), skips
 * the partitioning and upload (the KV entry lists the partitions, the object store holds them) and replays the
 * algorithm: each task is named by its content (nats.tasks.ts), so every task that finished before the restart is
 * answered from its stored result at once and only the rest are computed. The same run id on other points is an
 * InputError; a run that ended 'done' starts over, as does one whose partitions are lost (its folder gone, or a file
 * of it missing a part: partitionsLost).
 *
 * Failure: a fresh run that fails before every partition is stored (an upload refused) has no KV state, so nothing
 * could resume it: its queued tasks, object store and folder are removed before it rejects. A task's failure after
 * that leaves the run 'failed' with its objects, for the same run id to resume.
 *
 * Interrupt (`signal`, the CLI's Ctrl-C): seen between the partitioning's passes and at once while tasks are awaited
 * (NatsExecutor rejects its waits with AbortError and publishes nothing more); the run stays 'running' in the KV with
 * its folder and stored results, the tasks already queued are computed by the workers meanwhile, and the same run id
 * resumes it.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { Kvm, type KV } from '@nats-io/kv';
import { AbortError, InputError } from '../errors.js';
import type { EmstClusterOptions } from '../emst/validate.js';
import { registerClusterEntry } from '../emst/emst.js';
import type { ProgressCallback } from '../progress.js';
import {
  bodyLimit,
  checkRunId,
  connectNats,
  jetstreamManagerOf,
  PREPARE_SUBJECT,
  putMessage,
  RUNS_BUCKET,
  runBucket,
} from './nats.js';
import {
  defaultLocalBase,
  filesAtOnce,
  messageFileFault,
  openLocal,
  partitionFile,
  partsPerFile,
  listFiles,
  removeFile,
  sameFolder,
  serveNeeds,
  writeMessageFile,
  type LocalLink,
} from './nats.local.js';
import { NatsJobs, untilAborted, type JobTraffic } from './nats.jobs.js';
import { contentId, partitionObject } from './nats.tasks.js';
import { encodedSize, MAX_MESSAGE_BYTES } from './nats.codec.js';
import { partitionInfo } from './partition.js';
import { blockHashes, partitionPointsThreaded, partitionWithHashes, sharedPoints } from './partition.threads.js';
import { COORDINATOR_THREADS, resolveThreads } from '../host/threads.js';
import { partitionedEmst } from './partition.emst.js';
import { PARTITIONED_METHODS } from './types.js';
import type {
  EdgeSink,
  PartitionData,
  PartitionedEmstMethod,
  PartitionedEmstResult,
  PartitionExecutor,
  PartitionInfo,
  PartitionTaskKind,
  TaskMessage,
} from './types.js';

/** Where and how to run: the server, the number of partitions, the run's id (emst()'s `cluster`). */
export type ClusterOptions = EmstClusterOptions;

export const DEFAULT_PARTITIONS = 8;

/** The run's entry in the KV bucket. */
export interface RunState {
  status: 'running' | 'done' | 'failed';
  /** 16 hex digits of the points and the options (contentId over them). */
  fingerprint: string;
  n: number;
  dim: number;
  minSamples: number;
  alpha: number;
  partitions: PartitionInfo[];
  /** The latest progress phase ('round 3'). */
  phase?: string;
  /** When done: the tree's edge count (runs before session 16 also recorded totalWeight); when failed: the error. */
  edges?: number;
  error?: string;
  traffic?: JobTraffic;
  /** The same-host folder the partitions were written to (nats.local.ts), if any. */
  local?: LocalLink;
  /** The message-id suffix of the run's first start (NatsJobs.publication), which a resumption publishes under. */
  publication?: string;
}

/** The executor the algorithm talks to: one NATS task per call. */
export class NatsExecutor implements PartitionExecutor {
  /**
   * `onTreeDone(done, total, what)`: after each local tree ('partitions') or pair ('pairs') of a batch (the long
   * phase), for "partitions done" / "pairs done" progress.
   */
  constructor(
    private readonly jobs: NatsJobs,
    private readonly infos: PartitionInfo[],
    private readonly onTreeDone?: (done: number, total: number, what: 'partitions' | 'pairs') => void,
    /** Resolves once partition p is in the object store (uploads run beside the first tasks); absent: all are. */
    private readonly stored?: (p: number) => Promise<void>,
    /**
     * The run's signal: once it aborts, every wait (a task's reply, its partitions' uploads) rejects with AbortError
     * at once and nothing more is published; the tasks already queued stay there, their results stored for a resume.
     */
    private readonly signal?: AbortSignal,
  ) {}

  partitions(): PartitionInfo[] {
    return this.infos.map((info) => ({ ...info }));
  }

  async run(partition: number, kind: PartitionTaskKind, msg: TaskMessage): Promise<TaskMessage> {
    await untilAborted(this.ready(partition, kind, msg), this.signal, `partition ${partition}'s upload`);
    return this.jobs.submit(kind, partition, msg, this.signal);
  }

  /** Resolves once the task's partition, and a pair's partner too, are stored (uploads run beside the tasks). */
  private async ready(partition: number, kind: PartitionTaskKind, msg: TaskMessage): Promise<void> {
    if (!this.stored) return;
    await this.stored(partition);
    const partner = msg.meta.partner;
    if (kind === 'pair' && typeof partner === 'number') await this.stored(partner);
  }

  runMany(
    tasks: { partition: number; kind: PartitionTaskKind; msg: TaskMessage }[],
    onReply?: (t: number, reply: TaskMessage) => void,
  ): Promise<TaskMessage[]> {
    const trees = tasks.filter((t) => t.kind === 'tree').length;
    const pairs = tasks.filter((t) => t.kind === 'pair').length;
    let done = 0;
    let paired = 0;
    // Published in the batch's order (the work queue hands tasks out in that order): each waits for the one before
    // it to be ready, so a task whose partitions are stored early does not overtake the batch's earlier tasks.
    let previous: Promise<unknown> = Promise.resolve();
    return Promise.all(
      tasks.map(async (t, i) => {
        const ready = previous.then(() => this.ready(t.partition, t.kind, t.msg));
        previous = ready.catch(() => undefined);
        await untilAborted(ready, this.signal, `partition ${t.partition}'s upload`);
        const reply = await this.jobs.submit(t.kind, t.partition, t.msg, this.signal);
        if (t.kind === 'tree') this.onTreeDone?.(++done, trees, 'partitions');
        if (t.kind === 'pair') this.onTreeDone?.(++paired, pairs, 'pairs');
        onReply?.(i, reply);
        return reply;
      }),
    );
  }
}

export interface EmstOnNatsOptions {
  dim: number;
  minSamples?: number;
  alpha?: number;
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
  cluster: ClusterOptions;
  /** partitionedEmst's method (default: cluster.method, else TREELINE_PARTITIONED_METHOD, else 'rounds'). */
  method?: PartitionedEmstMethod;
  /** partitionedEmst's sink: where the 'pairs' method may write the tree as it merges it (the CLI's .npy files). */
  sink?: EdgeSink;
}

/** What a distributed run returns beyond the tree: its id and what crossed the network. */
export interface EmstOnNatsResult extends PartitionedEmstResult {
  runId: string;
  traffic: JobTraffic;
  /** Whether this call resumed an unfinished run. */
  resumed: boolean;
}

/**
 * partitionedEmst's method for runs on NATS where neither the call nor `cluster.method` names one:
 * TREELINE_PARTITIONED_METHOD=pairs selects the pair MSTs with the owners' contraction (the method timed on GPU workers:
 * bench/RESULTS.md), =pairs-kruskal the pairs without it, against the default Borůvka rounds ('rounds': the least work,
 * for CPU workers; README environment table).
 */
function methodFromEnv(): PartitionedEmstMethod {
  const v = process.env.TREELINE_PARTITIONED_METHOD;
  return v === undefined || v === '' ? 'rounds' : asMethod(v, 'TREELINE_PARTITIONED_METHOD');
}

/** `cluster.method` where given, checked (an API caller may pass any string). */
function checkedMethod(v: unknown): PartitionedEmstMethod | undefined {
  return v === undefined ? undefined : asMethod(v, 'cluster.method');
}

/** `v` as a method, checked before anything is read or sent (partitionedEmst checks only once the run is under way). */
function asMethod(v: unknown, what: string): PartitionedEmstMethod {
  if ((PARTITIONED_METHODS as readonly unknown[]).includes(v)) return v as PartitionedEmstMethod;
  throw new InputError(`Expected ${what} to be 'rounds', 'pairs' or 'pairs-kruskal', got '${String(v)}'.`);
}

const freshRunId = (): string => `run-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 6).toString(36)}`;

async function readState(kv: KV, run: string): Promise<RunState | null> {
  const e = await kv.get(run);
  if (!e || e.operation !== 'PUT' || e.length === 0) return null;
  return e.json<RunState>();
}

/**
 * Every partition's message (its points and ids: what its file or object holds) within MAX_MESSAGE_BYTES, the largest
 * byte array a reader makes (Node 20's typed arrays stop at 2^32 elements): else an input error naming the partitions
 * that would do — at once, instead of a worker's failed read minutes later.
 */
export function checkPartitionSizes(data: Pick<PartitionData, 'id' | 'points' | 'ids'>[], dim: number): void {
  let largest = 0;
  for (const d of data) largest = Math.max(largest, encodedSize(partitionMessage(d, dim)));
  if (largest > MAX_MESSAGE_BYTES) {
    const k = data.length;
    throw new InputError(
      `A partition of ${(largest / 1e9).toFixed(2)} GB is past the ${(MAX_MESSAGE_BYTES / 1e9).toFixed(2)} GB a ` +
        `partition may have (its file or object is read into one array): use --partitions ${Math.ceil((k * largest) / MAX_MESSAGE_BYTES)} or more (this run has ${k}).`,
    );
  }
}

/** Partition d's message: what its file or object holds. */
const partitionMessage = (d: Pick<PartitionData, 'id' | 'points' | 'ids'>, dim: number): TaskMessage => ({
  meta: { id: d.id, dim },
  arrays: { points: d.points, ids: d.ids },
});

/** The partitioned exact EMST (or mutual-reachability MST) of `points` on the workers of `options.cluster`. */
export async function emstOnNats(
  points: Float32Array | Float64Array,
  options: EmstOnNatsOptions,
): Promise<EmstOnNatsResult> {
  const { dim, cluster } = options;
  const minSamples = options.minSamples ?? 1;
  const alpha = options.alpha ?? 1;
  const k = cluster.partitions ?? DEFAULT_PARTITIONS;
  const method = options.method ?? checkedMethod(cluster.method) ?? methodFromEnv();
  if (!Number.isInteger(k) || k < 1) throw new InputError(`Expected cluster.partitions ≥ 1, got ${k}.`);
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  const run = checkRunId(cluster.runId ?? freshRunId());
  const log = cluster.log ?? (() => {});
  const nc: NatsConnection = await connectNats({ ...cluster, name: cluster.name ?? `treeline coordinator ${run}` });
  let jobs: NatsJobs | null = null;
  let serving: { stop(): Promise<void> } | null = null;
  try {
    await jetstreamManagerOf(nc); // a clear error where the server has no JetStream
    // The run's size to every worker before the partitioning: a 'pairs' run's workers take their tasks' scratch
    // meanwhile (worker.ts), not in their first pair and forest.
    if (method !== 'rounds') {
      const euclidean = minSamples <= 1 && alpha === 1;
      nc.publish(PREPARE_SUBJECT, JSON.stringify({ run, n: Math.floor(points.length / dim), dim, k, euclidean }));
    }
    const kv = await new Kvm(nc).create(RUNS_BUCKET);
    // The input's fingerprint: a hash of its 16 MiB blocks' hashes, on COORDINATOR_THREADS threads (the library's
    // default stops at 8). A fresh run takes the hashes from the partitioning's first pass (partitionWithHashes: the
    // points read once for both) and publishes nothing before; only a run id with an unfinished entry, which must be
    // compared before anything else, hashes them in a pass of their own (distributed::fingerprint).
    const threads = await resolveThreads(undefined, points.length / dim, COORDINATOR_THREADS);
    const fingerprintOf = (blocks: Uint32Array): string =>
      contentId('input', k, {
        meta: { n: points.length / dim, dim, minSamples, alpha, type: points.constructor.name },
        arrays: { blocks },
      });
    const timings: Record<string, number> = {};
    if (options.signal?.aborted) throw new AbortError(`run ${run} was aborted before it started.`);
    const previous = await readState(kv, run);
    let fingerprint: string | null = null;
    let resumed = false;
    // The points the split reads: in shared memory once hashed here (null once split: an async function keeps its
    // locals for its whole run).
    let input: Float32Array | Float64Array | null = points;
    if (previous && previous.status !== 'done') {
      const tFp = performance.now();
      input = await sharedPoints(points, threads);
      fingerprint = fingerprintOf(await blockHashes(input, dim, threads));
      timings['distributed::fingerprint'] = performance.now() - tFp;
      if (previous.fingerprint !== fingerprint) {
        throw new InputError(
          `Run id '${run}' belongs to an unfinished run on other points or options (fingerprint ` +
            `${previous.fingerprint}, this input ${fingerprint}): choose another --run-id.`,
        );
      }
      resumed = true;
      const lost = previous.local ? await partitionsLost(nc, run, previous) : null;
      if (lost !== null) {
        log(`run ${run}: ${lost}: starting over`);
        resumed = false;
      }
    }
    // The run's jobs, under the fingerprint (every task's id and header carry it: NatsJobs.open's epoch), so opened
    // only once it is known: on a fresh start after the split below.
    const openJobs = (epoch: string): Promise<NatsJobs> =>
      NatsJobs.open(nc, run, {
        fresh: !resumed,
        ...(resumed ? { publication: previous!.publication } : {}),
        epoch,
        onStall: (pending, seconds) =>
          log(
            `run ${run}: ${pending} tasks waiting, no result for ${seconds} s: are workers running on ${cluster.url}?`,
          ),
      });
    let state: RunState;
    const t0 = performance.now();
    // Per partition: stored (resolves when its upload is done); `saved`: the run state in the KV, written once every
    // partition is stored (a coordinator that dies before then leaves no state, and its run starts over).
    let stored: ((p: number) => Promise<void>) | undefined;
    let saved: Promise<void>;
    if (resumed) {
      input = null;
      jobs = await openJobs(fingerprint!);
      state = { ...previous!, status: 'running', error: undefined };
      jobs.local = state.local ?? null;
      log(`run ${run}: resuming (${previous!.status}, last at ${previous!.phase ?? 'the start'})`);
      saved = kv.put(run, JSON.stringify(state)).then(() => undefined);
    } else {
      options.onProgress?.(0, 'partition');
      // On the host's worker threads from 10^6 points (partition.threads.ts; the same partitions as partitionPoints),
      // the fingerprint's block hashes in its first pass (unless known already: a run started over).
      const splitOptions = { threads, timings, signal: options.signal };
      let data: (PartitionData | null)[];
      if (fingerprint === null) {
        const split = await partitionWithHashes(input!, dim, k, splitOptions);
        data = split.partitions;
        fingerprint = fingerprintOf(split.blocks);
      } else data = await partitionPointsThreaded(input!, dim, k, splitOptions);
      input = null;
      checkPartitionSizes(data as PartitionData[], dim);
      jobs = await openJobs(fingerprint);
      // Cells prune the rounds' and the cores' queries; the pairs' Euclidean run needs the boxes alone.
      const cells = method === 'rounds' || minSamples > 1 || alpha !== 1;
      const infos = data.map((d) => partitionInfo(d!, { cells }));
      timings['distributed::partition'] = performance.now() - t0;
      log(`run ${run}: ${k} partitions split (on up to ${threads} threads)`);
      // The same-host folder (nats.local.ts), where one can be made with room for every partition.
      const link = await localFolder(cluster, run, data, log);
      jobs.local = link;
      state = {
        status: 'running',
        fingerprint,
        n: points.length / dim,
        dim,
        minSamples,
        alpha,
        partitions: infos,
        publication: jobs.publication,
        ...(link ? { local: link } : {}),
      };
      // The writes or uploads in partition order, beside the algorithm: its first tasks (the pairs (0, 1), (0, 2), …,
      // (0, k − 1), then the rest; local trees 0, 1, …) are published as their partitions are stored. Files go one at a
      // time in `parts` files on worker threads of their own (partsPerFile: a file's writes queue on its inode lock), so
      // that each lands as early as the threads allow, 0 and 1 first; on 2–3 cores two whole files at once (filesAtOnce:
      // partition p starts once p − lanes is stored); uploads to the object store (no folder, or a file that could not
      // be written) one after another. The
      // first upload that fails stops every lane: no write or upload starts after it, and each partition not yet stored
      // fails with its error (what the tasks waiting for them, and so the run, report).
      const tUp = performance.now();
      const lanes = link ? await filesAtOnce(k) : 1;
      const parts = link ? await partsPerFile(lanes) : 1;
      const uploads: Promise<void>[] = [];
      let failure: Error | null = null;
      let upload = Promise.resolve();
      const toStore = (id: number, msg: TaskMessage): Promise<void> => {
        const done = upload.then(async () => {
          if (failure) throw failure;
          try {
            jobs!.traffic.bytesSent += await putMessage(jobs!.store, partitionObject(id), msg, bodyLimit(nc));
          } catch (e) {
            failure ??= new Error(
              `run ${run}: partition ${id}'s upload to the object store failed: ${(e as Error).message}`,
            );
            throw failure;
          }
        });
        upload = done.catch(() => undefined);
        return done;
      };
      for (let p = 0; p < k; p++) {
        const after = p >= lanes ? uploads[p - lanes] : Promise.resolve();
        uploads.push(
          after.then(async () => {
            if (failure) throw failure;
            const d = data[p]!;
            data[p] = null; // the store (or the file) holds it now; no second copy here
            const msg = partitionMessage(d, dim);
            if (link) {
              try {
                jobs!.traffic.localBytes += await writeMessageFile(
                  link.dir,
                  partitionFile(d.id),
                  msg,
                  undefined,
                  parts,
                );
                return;
              } catch (e) {
                log(`run ${run}: partition ${d.id} goes through the object store: ${(e as Error).message}`);
              }
            }
            await toStore(d.id, msg);
          }),
        );
      }
      stored = (p) => uploads[p];
      saved = Promise.all(uploads).then(async () => {
        timings['distributed::upload'] = performance.now() - tUp;
        log(`run ${run}: ${k} partitions stored`);
        await kv.put(run, JSON.stringify(state));
      });
      options.onProgress?.(0, 'upload partitions');
    }
    saved.catch(() => undefined); // awaited below; a failed upload also fails the tasks that wait for it
    // Workers that do not see the same-host folder ask for its partitions in the object store.
    if (jobs.local) serving = serveNeeds(nc, run, jobs, state.partitions.length, saved, log);
    const tStart = performance.now() - t0;
    let lastPhase = '';
    let lastFraction = 0;
    let isSaved = false;
    saved.then(() => (isSaved = true)).catch(() => undefined);
    const onProgress: ProgressCallback = (fraction, phase) => {
      lastFraction = fraction;
      options.onProgress?.(fraction, phase);
      if (phase && phase !== lastPhase) {
        lastPhase = phase;
        state.phase = phase;
        if (isSaved) kv.put(run, JSON.stringify(state)).catch(() => {});
      }
    };
    let result: PartitionedEmstResult;
    try {
      const onTreeDone = (done: number, total: number, what: string): void =>
        options.onProgress?.(lastFraction, `${lastPhase}: ${done} of ${total} ${what} done`);
      const executor = new NatsExecutor(jobs, state.partitions, onTreeDone, stored, options.signal);
      result = await partitionedEmst(executor, {
        dim,
        minSamples,
        alpha,
        onProgress,
        signal: options.signal,
        method,
        ...(options.sink ? { sink: options.sink } : {}),
      });
      await saved;
    } catch (e) {
      // An interrupt leaves the run 'running', resumable as it is once every partition is stored (its KV state is
      // written then: a wait of the partitions not yet stored, short for the same-host files, an upload's time through
      // the object store); meanwhile nothing more is published (jobs.close first). A task's failure is recorded. A
      // failed upload leaves no state, and so nothing of the run (below): the run id starts over.
      if (options.signal?.aborted) await jobs.close();
      const uploaded = await saved.then(
        () => true,
        () => false,
      );
      if (!options.signal?.aborted && uploaded) {
        await kv.put(run, JSON.stringify({ ...state, status: 'failed', error: (e as Error).message }));
      }
      if (!uploaded && !resumed) {
        // No state names the run (it is written once every partition is stored): nothing could resume it, so what it
        // made goes — its tasks still queued, its object store (the partitions stored before the failure) and folder.
        await serving?.stop();
        await jobs.close();
        await jobs.withdraw().catch(() => undefined);
        await jobs.destroyStore().catch((err: Error) => {
          log(
            `run ${run}: its object store ${runBucket(run)} or its folder could not be removed (${err.message}): ` +
              'remove them by hand (README: More than one GPU or machine)',
          );
        });
      } else if (jobs.local) {
        // The same-host folder stays for a resumption: say where, as it holds memory (/dev/shm) until removed.
        log(
          `run ${run}: its partitions and results stay in ${jobs.local.dir} for --run-id ${run}; remove it if not resuming`,
        );
      }
      throw e;
    }
    // The run's end (its KV entry, the store's removal): distributed::finish. (No total weight here: one pass in order
    // over the weights, 0.35–0.7 s at 2·10^8 on the H100 hosts, was the run's own time after the last task; the CLI
    // sums them while its files are written.)
    const tFinish = performance.now();
    const traffic = { ...jobs.traffic };
    await kv.put(run, JSON.stringify({ ...state, status: 'done', edges: result.weights.length, traffic } as RunState));
    await serving?.stop();
    await jobs.close();
    const tStore = performance.now();
    if (!cluster.keep) await jobs.destroyStore();
    timings['distributed::finish.store'] = performance.now() - tStore;
    return {
      ...result,
      // partition+upload: the time before the algorithm started (the partitioning; the uploads overlap the tasks).
      timings: {
        'distributed::partition+upload': tStart,
        ...timings,
        ...result.timings,
        'distributed::finish': performance.now() - tFinish,
      },
      runId: run,
      traffic,
      resumed,
    };
  } finally {
    // (A failed run's need notes: no upload starts after this, and the one in flight ends before the connection.)
    await serving?.stop();
    await jobs?.close();
    await nc.drain().catch(() => nc.close());
  }
}

/**
 * The run's same-host folder (nats.local.ts) under cluster.localDir (default /dev/shm), with room for `data`'s
 * partitions; null (the object store alone) where localDir is false, or the folder cannot be made.
 */
async function localFolder(
  cluster: ClusterOptions,
  run: string,
  data: (PartitionData | null)[],
  log: (line: string) => void,
): Promise<LocalLink | null> {
  if (cluster.localDir === false) return null;
  const base = cluster.localDir ?? (await defaultLocalBase());
  if (base === null) return null;
  let bytes = 0;
  for (const d of data) if (d) bytes += d.points.byteLength + d.ids.byteLength + 4096;
  const { link, why } = await openLocal(base, run, bytes);
  if (!link) log(`run ${run}: partitions go through the object store (${why})`);
  return link;
}

/**
 * Why a resumed run's partitions are not all still there, as files in its folder or as objects; null where they are.
 * A file that readMessageFile could not read whole (a part of it missing or short: messageFileFault) is removed, so
 * that the workers read the object in its place where there is one; where there is none, the run starts over.
 */
async function partitionsLost(nc: NatsConnection, run: string, state: RunState): Promise<string | null> {
  const link = state.local!;
  if (!(await sameFolder(link))) return `its partitions are gone from ${link.dir} (and the object store)`;
  let os: ObjectStore | null = null;
  for (let p = 0; p < state.partitions.length; p++) {
    const fault = await messageFileFault(link.dir, partitionFile(p));
    if (fault === null) continue;
    // The index and the parts that are left (nothing reads them any more; they hold shared memory).
    const name = partitionFile(p);
    for (const file of await listFiles(link.dir)) {
      if (file === name || file.startsWith(`${name}.`)) await removeFile(link.dir, file);
    }
    os ??= await new Objm(nc).open(runBucket(run)).catch(() => null);
    if (!os || (await os.info(partitionObject(p)).catch(() => null)) === null) {
      return `partition ${p} is in neither its folder nor the object store (${fault})`;
    }
  }
  return null;
}

// emst()'s `cluster` finds this entry without importing distributed/ (emst.ts: registerClusterEntry).
registerClusterEntry(emstOnNats);
