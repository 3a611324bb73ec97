/**
 * The host side of the GPU MST's read-back (pipeline.ts, readEdges) on Node worker threads, for `hdbscan()`, whose
 * buffers are shared: the sorted pairs, copied from the mapped range into shared scratch, become sources and weights
 * by ranges of edges — the same arrays as one thread writes. Two layouts:
 *   - (source, weight bits) in the final order, from the GPU's canonical sort (canonical.ts): pass 'copy' only;
 *   - (min end, key bits) sorted by key: 'convert' takes weights fround(sqrt(key)), then 'runs' sorts the runs of
 *     equal weight that start in each range by (source, target) (edges.cpu.ts).
 *
 * Node only; answers false where worker threads or the built worker script are missing (the caller then finishes
 * on one thread).
 */
import { sharedBuffer, touchOnWorkers } from '../host/buffers.js';
import { nextMessageId, splitOnWorkers, workersAtHand, type JobTable } from '../host/threads.js';
import { THRESHOLDS } from '../host/thresholds.js';
import { sortEqualWeightRunsFrom, type EdgeList } from './edges.cpu.js';

/** Where readEdges may finish on threads: shared output arrays (n − 1 each) and scratch of ≥ 8(n − 1) bytes. */
export interface ReadbackInto {
  edges: EdgeList;
  scratch: SharedArrayBuffer;
  threads: number;
  /** Resolves when the arrays may be written (they may still be being touched: cluster/buffers.ts). */
  ready: Promise<void>;
}

/** One pass over one range of edges as a worker receives it. */
export interface ReadbackJob {
  kind: 'readback';
  id: number;
  pass: 'copy' | 'convert' | 'runs';
  /** 2m words: (source, weight bits) per edge for 'copy', (min end, key bits) for 'convert'. */
  pairs: Uint32Array;
  edges: EdgeList;
  e0: number;
  e1: number;
}

export interface ReadbackReply {
  id: number;
  error?: string;
}

/**
 * One pass over edges [e0, e1): both sides run it, and readEdges runs 'copy' on one thread straight from each
 * mapped chunk of the read-back, whose first pair is edge `p0` (default 0: `pairs` starts at edge 0). Locals, not
 * the edge list's fields, inside the loop: V8 keeps it faster that way (bench/RESULTS.md).
 */
export function readbackPass(job: Pick<ReadbackJob, 'pass' | 'pairs' | 'edges' | 'e0' | 'e1'> & { p0?: number }): void {
  const { pairs, edges, e0, e1 } = job;
  const o = 2 * (job.p0 ?? 0);
  if (job.pass === 'runs') {
    sortEqualWeightRunsFrom(edges, e0, e1);
    return;
  }
  const { sources, weights } = edges;
  const keys = new Float32Array(pairs.buffer, pairs.byteOffset, pairs.length);
  if (job.pass === 'copy') {
    for (let e = e0; e < e1; e++) {
      sources[e] = pairs[2 * e - o];
      weights[e] = keys[2 * e + 1 - o];
    }
    return;
  }
  for (let e = e0; e < e1; e++) {
    sources[e] = pairs[2 * e - o];
    weights[e] = Math.sqrt(keys[2 * e + 1 - o]); // rounded to f32 by the store: fround(sqrt(key))
  }
}

/** The worker's side. */
export function runReadbackJob(job: ReadbackJob): ReadbackReply {
  readbackPass(job);
  return { id: job.id };
}

/** Counts of the threaded path, for tests that must know it ran (cumulative per process). */
export const readbackThreadStats = { runs: 0 };

/**
 * Finishes `edges` from `pairs` on `threads` threads (the main thread included); false where it cannot. `canonical`:
 * the pairs are (source, weight bits) already in canonical order (one 'copy' pass), else (min end, key bits).
 */
export async function finishReadbackThreaded(
  pairs: Uint32Array,
  edges: EdgeList,
  threads: number,
  canonical = false,
): Promise<boolean> {
  const m = edges.sources.length;
  const parts = Math.max(1, Math.min(threads, Math.floor(m / 65536)));
  const arrays = [pairs, edges.sources, edges.targets, edges.weights];
  if (parts < 2 || !arrays.every((a) => a.buffer instanceof SharedArrayBuffer)) return false;
  const bound = (j: number) => Math.floor((m * j) / parts);
  const done = await splitOnWorkers(parts, true, 'emst::readback', async (pass) => {
    for (const kind of canonical ? (['copy'] as const) : (['convert', 'runs'] as const)) {
      const id = nextMessageId();
      const range = (j: number) => ({ pass: kind, pairs, edges, e0: bound(j), e1: bound(j + 1) });
      await pass<ReadbackReply>(
        (j): ReadbackJob => ({ kind: 'readback', id, ...range(j) }),
        () => readbackPass(range(0)),
      );
    }
    return true;
  });
  if (done === null) return false;
  readbackThreadStats.runs++;
  return true;
}

/** The worker's side (src/worker.ts). */
export const readbackJobs = { readback: runReadbackJob } satisfies JobTable;

/**
 * Shared arrays for an m-edge read-back (and its 8m-byte scratch), allocated now and first touched by worker threads
 * while the GPU computes the tree, so that the read-back writes into mapped pages (a fresh array takes its pages at
 * 0.9–1.9 GB/s on the H100's host, a touched one 13–16: bench/RESULTS.md, issue 17). `treeline emst` passes it as
 * emst's readInto; the result's arrays then view SharedArrayBuffers. Null where worker threads or the built worker
 * script are missing, or m is under `minEdges`.
 */
export async function prepareEdgeArrays(
  m: number,
  threads: number,
  minEdges = THRESHOLDS.preparedMinPoints,
): Promise<ReadbackInto | null> {
  if (threads < 2 || m < minEdges || !(await workersAtHand())) return null;
  const edges: EdgeList = {
    sources: new Uint32Array(sharedBuffer(4 * m), 0, m),
    targets: new Uint32Array(sharedBuffer(4 * m), 0, m),
    weights: new Float32Array(sharedBuffer(4 * m), 0, m),
  };
  const scratch = sharedBuffer(8 * m);
  const arrays = [edges.sources, edges.targets, edges.weights].map((a) => ({
    buffer: a.buffer as SharedArrayBuffer,
    bytes: a.byteLength,
  }));
  const ready = touchOnWorkers([...arrays, { buffer: scratch, bytes: 8 * m }], threads, 'emst::edges');
  return { edges, scratch, threads, ready };
}
