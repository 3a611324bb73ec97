/**
 * The interface between the partitioned exact EMST (issue 20 §2: src/distributed/partition*.ts, the algorithm) and
 * whatever carries its messages (src/distributed/nats*.ts / worker*.ts / coordinator*.ts, or the in-process
 * executor of the tests). Types only: the algorithm never sees the transport, the transport never sees the algorithm.
 *
 *   coordinator (partitionedEmst)  ──TaskMessage──▶  PartitionExecutor.run(partition, kind, msg)
 *                                  ◀──TaskMessage──  PARTITION_TASKS[kind](partitionData, msg, env) on its owner
 *
 * Every request and every reply is one TaskMessage: a small JSON-able `meta` and named flat typed arrays. A transport
 * sends `meta` as JSON and the arrays as bytes (the object store for large ones); it never interprets either. The
 * handlers are pure: everything a task needs beyond its partition's points comes in the message (component labels,
 * core distances), so any owner of a copy of the partition can run any task again after a failure and reply the
 * same bytes. A worker may cache what it derives from a partition's points (its BVH) across tasks; it must not cache
 * anything derived from a message.
 *
 * Task kinds (PartitionTaskKind; the arrays each takes and returns are documented at PARTITION_TASKS in
 * src/distributed/partition.tasks.ts):
 *   'rows'       the coordinates of some of its rows (the coordinator sends them on as other partitions' queries)
 *   'tree'       the partition's own EMST (or mutual-reachability MST given the true core distances), global ids, keys
 *   'nearest'    per query point, its lightest edge to a point of this partition in another component (Borůvka)
 *   'coreBound'  mutual reachability: each own point's squared core distance among this partition's points only
 *   'knn'        mutual reachability: per query point from another partition, its m smallest keys to this partition
 *   'core'       mutual reachability: each own point's true squared core distance, given the halo lists
 *   'pair'       the MST of this partition's points together with a partner partition's (or of its own alone): the
 *                edges between the two, and the edges within each of the two it is asked for (partition.pairs.ts)
 *   'forest'     the partition's MST split into edges proven global MST edges and the rest (partition.pairs.ts)
 *
 * The functions around these types (src/distributed/partition.ts): partitionPoints(points, dim, k): PartitionData[]
 * (Morton-order split), partitionInfo(data): PartitionInfo, messageBytes(msg), new InProcessExecutor(partitions, env),
 * partitionedEmst(executor, options): Promise<PartitionedEmstResult>.
 */
import type { EdgeSink } from '../io/sink.js';
import type { GpuContext } from '../gpu/context.js';
import type { ProgressCallback } from '../progress.js';
import type { EdgeList } from '../emst/edges.cpu.js';

/** A value `JSON.stringify` / `JSON.parse` carry unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The typed arrays a TaskMessage may carry (their bytes in the host's byte order: little-endian everywhere we run). */
export type TaskArray = Float32Array | Float64Array | Uint32Array | Int32Array | Uint8Array;

/** One request or reply between the coordinator and a partition's owner. */
export interface TaskMessage {
  /** Small JSON-able facts (sizes, parameters, the run's scale exponent). */
  meta: { [key: string]: JsonValue };
  /** Named flat arrays (points, ids, labels, keys): the bulk of every message. */
  arrays: Record<string, TaskArray>;
}

/** The names of the tasks a partition's owner answers (PARTITION_TASKS in partition.tasks.ts). */
export type PartitionTaskKind = 'rows' | 'tree' | 'nearest' | 'coreBound' | 'knn' | 'core' | 'pair' | 'forest';

/** One spatial partition's points, as its owner holds them (partitionPoints() makes them). */
export interface PartitionData {
  /** 0 … k − 1, the partition's place in the Morton order. */
  id: number;
  /** Coordinates per point. */
  dim: number;
  /** count × dim row-major float32 coordinates (the caller's points rounded to float32, not scaled). */
  points: Float32Array;
  /** count global point indices, strictly ascending: row r of `points` is the caller's point ids[r]. */
  ids: Uint32Array;
  /**
   * The points' per-axis minima and maxima where the split found them (partitionPointsThreaded): partitionInfo's box
   * without a pass over the points. Not sent to workers.
   */
  box?: { lo: number[]; hi: number[] };
}

/** What the coordinator knows of a partition before any task: its size and where its points lie. */
export interface PartitionInfo {
  /** The partition's id (PartitionData.id). */
  id: number;
  /** Its number of points. */
  count: number;
  /** dim float32 lower corners of its points' bounding box (empty when count is 0). */
  lo: number[];
  /** dim float32 upper corners. */
  hi: number[];
  /**
   * Optional tighter cover: c boxes, flat as c × 2·dim numbers (lo then hi per box), whose union contains every point
   * (a Morton range's bounding box can be much larger than its points' region). Used only to prune queries.
   */
  cells?: number[];
}

/** How a partition's owner computes: the caller's backend choice, threads, and a GPU context it owns. */
export interface TaskEnv {
  backend: 'auto' | 'gpu' | 'cpu';
  /** Host threads for the CPU backend (emst()'s `threads`) and the tasks' own passes: `--threads`, fixed. */
  threads?: number;
  /**
   * Where `threads` is absent: the most host threads one task takes, its worker's share of the host (worker.host.ts,
   * set at each task's start). The partition tasks hold their passes (TASK_THREADS_MAX by default) and the CPU
   * backend's MST (emst()'s 8) to it. Absent: each pass's own default.
   */
  hostThreads?: number;
  /** A GPU context to run on (emst()'s `gpu`); the caller keeps ownership. */
  gpu?: GpuContext;
}

/**
 * A worker-side handler: pure in the partition and the message (see the header). `partner(q)` gives another
 * partition's points (its owner's copy: a worker reads it from the run's object store once), for tasks over two
 * partitions ('pair'); it rejects where the transport has no such partition.
 */
export type PartitionTask = (
  partition: PartitionData,
  msg: TaskMessage,
  env: TaskEnv,
  partner: (q: number) => Promise<PartitionData>,
) => Promise<TaskMessage>;

/** The coordinator's view of the partitions' owners: the only thing a transport has to provide. */
export interface PartitionExecutor {
  /** Every partition's id, size and box, ids 0 … k − 1 in order. */
  partitions(): PartitionInfo[];
  /** Runs task `kind` on partition `partition`'s owner and resolves with its reply (rejects with its error). */
  run(partition: number, kind: PartitionTaskKind, msg: TaskMessage): Promise<TaskMessage>;
  /**
   * Optional batching: the same as Promise.all(tasks.map(run)), replies in the tasks' order. partitionedEmst() calls
   * it for every batch of independent tasks (one per partition per phase or round) when present. `onReply(t, reply)`,
   * when given, may be called as each task's reply arrives (partitionedEmst then works on it meanwhile).
   */
  runMany?(
    tasks: { partition: number; kind: PartitionTaskKind; msg: TaskMessage }[],
    onReply?: (t: number, reply: TaskMessage) => void,
  ): Promise<TaskMessage[]>;
}

/**
 * How partitionedEmst() finds the edges between partitions (partition.emst.ts, partition.pairs.ts):
 *   'pairs'          every pair of partitions' MST on one owner for the edges between them, then each
 *                    owner's own MST split into proven MST edges and the rest ('forest'); the coordinator runs
 *                    Kruskal over the rest and the crossing edges (few) and merges the sorted lists: O(k²) tasks run
 *                    side by side, the coordinator's work one merge over ~n edges;
 *   'pairs-kruskal'  the same pairs, one per partition also returning the edges within it, and the coordinator's
 *                    Kruskal over all of them (a union-find over ~n edges);
 *   'rounds'         (default) Borůvka rounds on the coordinator with nearest-other-component queries to the
 *                    owners (partition.rounds.ts): O(k) tasks per round, but rounds of coordinator work over the
 *                    border points (2·10^7 points on two H100s: 0.87× one worker's time).
 * The pairs do k/2 times the local trees' EMST work (fine on GPUs, where they are the method timed since session 10;
 * ~3× slower than 'rounds' with CPU workers): opt-in (bench/RESULTS.md, issue 20). PARTITIONED_METHODS in the order the
 * CLI lists them (--nats-method).
 */
export const PARTITIONED_METHODS = ['rounds', 'pairs', 'pairs-kruskal'] as const;
export type PartitionedEmstMethod = (typeof PARTITIONED_METHODS)[number];

/** partitionedEmst()'s options: emst()'s metric options (no periodic box, no scale cut). */
export interface PartitionedEmstOptions {
  /**
   * The cross-partition phase's method (default 'rounds': the one timed on GPUs so far; 'pairs' is exact in every
   * test and meant for GPU workers, but not yet timed on them).
   */
  method?: PartitionedEmstMethod;
  /** Coordinates per point (every partition's dim). */
  dim: number;
  /** Mutual reachability with core = the minSamples-th neighbour over all points (default 1: Euclidean). */
  minSamples?: number;
  /** Mutual reachability's alpha (default 1). */
  alpha?: number;
  /** Called with the fraction done and the phase ('local trees', 'core distances', 'round r'). */
  onProgress?: ProgressCallback;
  /** Checked between phases and rounds; an aborted signal rejects with AbortError. */
  signal?: AbortSignal;
  /**
   * Where the 'pairs' method may write the tree while it merges it (the CLI's `--format npy -o dir`); the result's
   * arrays are returned all the same. Not used by the other methods, nor where the weights are rescaled (extreme
   * coordinate scales) or the merge runs on one thread: the caller then writes the result itself (EdgeSinkFiles.done
   * was not called).
   */
  sink?: EdgeSink;
}

// EdgeSink and EdgeSinkFiles live in io/sink.ts (io/ is below distributed/: the sink's implementation there must not
// import from here); re-exported for the distributed/ code that takes them.
export type { EdgeSink, EdgeSinkFiles } from '../io/sink.js';

/** What the partitioned run moved and did, for bench/RESULTS.md. */
export interface PartitionedEmstStats {
  /** Partitions. */
  partitions: number;
  /** Borůvka rounds on the coordinator. */
  rounds: number;
  /** Tasks run (requests sent). */
  messages: number;
  /** Bytes of all requests' arrays plus their meta as JSON (what a transport must carry to the owners). */
  bytesSent: number;
  /** Bytes of all replies, counted the same way. */
  bytesReceived: number;
  /** Cross-partition queries (query point × partition asked), all rounds and halos. */
  queries: number;
  /** Local-tree edges proven global MST edges before the first round (partition.rounds.ts contract()). */
  contracted: number;
  /** 'pairs': the pair tasks run, and the edges they kept (the Kruskal's input). */
  pairs?: number;
  candidates?: number;
}

/** The MST in canonical order (as emst() returns it), with per-phase times (ms) and the traffic. */
export interface PartitionedEmstResult extends EdgeList {
  /**
   * Per-phase wall times (ms) under `distributed::…` labels (`….wait`: the part spent awaiting the owners' replies —
   * their work and the transport's — the rest being the coordinator's own), and `distributed::total`; the owners'
   * own times for their local trees under `partition::…` and `emst::…` labels, the largest over the partitions.
   */
  timings: Record<string, number>;
  stats: PartitionedEmstStats;
}
