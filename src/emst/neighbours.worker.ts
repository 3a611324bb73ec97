/**
 * The worker thread of the CPU EMST's split phases. k-NN jobs (neighbours.threads.ts): claim chunks of Morton
 * positions from the shared counter until none are left, run the same queries as the single-threaded code
 * (neighbours.cpu.ts, KnnSearch) into the shared lists, and answer how many were run. Borůvka rounds
 * (boruvka.threads.ts): keep the run's state from its setup message, for each phase claim chunks of the round's
 * per-point work (rounds.cpu.ts) and answer how many were run, and sort one half of the edges at the end.
 * HDBSCAN*'s labelling (src/cluster/pointResults.threads.ts): one range of the condensed tree's rows; and the first
 * touch of its buffers' pages ahead of time (src/cluster/buffers.ts); a share of condensing's layout and a range of
 * its runts (src/cluster/condense.threads.ts); a share of single linkage's steps (src/cluster/linkage.threads.ts); a range of
 * the GPU MST's read-back (readback.threads.ts).
 *
 * Node only: started by src/cpu/threads.ts, never imported by the library's entry points.
 */
import type { MessagePort } from 'node:worker_threads';
import {
  workerRound,
  type BoruvkaEnd,
  type BoruvkaPhase,
  type BoruvkaReply,
  type BoruvkaSetup,
  type SortEdges,
} from './boruvka.threads.js';
import { touchPages, type TouchJob, type TouchReply } from '../cluster/buffers.js';
import {
  runFillRuntsJob,
  runLayoutJob,
  type FillRuntsJob,
  type FillRuntsReply,
  type LayoutJob,
  type LayoutReply,
} from '../cluster/condense.threads.js';
import { runLinkageJob, type LinkageJob, type LinkageReply } from '../cluster/linkage.threads.js';
import { runPointRowsJob, type PointRowsJob, type PointRowsReply } from '../cluster/pointResults.threads.js';
import { sortEdgesCanonical } from './edges.cpu.js';
import { runReadbackJob, type ReadbackJob, type ReadbackReply } from './readback.threads.js';
import { KnnSearch } from './neighbours.cpu.js';
import type { NeighbourJob, NeighbourReply } from './neighbours.threads.js';

// A computed specifier, like every node: import of the library (test/cpu/package.test.ts checks that).
const moduleName = 'node:worker_threads';
const { parentPort } = (await import(/* @vite-ignore */ moduleName)) as { parentPort: MessagePort | null };
if (parentPort === null) throw new Error('emst::neighbours: neighbours.worker.js must run as a worker thread.');
const port = parentPort;

/** The current Borůvka run's phase runner, or the error its setup failed with. */
let round: ((phase: BoruvkaPhase) => number) | null = null;
let setupError: string | null = null;

const describe = (e: unknown) => {
  const error = e instanceof Error ? e : new Error(String(e));
  return error.stack ?? error.message;
};

/** Posts `work()`'s reply, or `failed` with the error's description when it throws. */
function answer<R extends NeighbourReply | BoruvkaReply | PointRowsReply | TouchReply | FillRuntsReply | ReadbackReply | LinkageReply | LayoutReply>(work: () => R, failed: R): void {
  let reply: R;
  try {
    reply = work();
  } catch (e) {
    reply = { ...failed, error: describe(e) };
  }
  port.postMessage(reply);
}

port.on('message', (m: NeighbourJob | BoruvkaSetup | BoruvkaPhase | BoruvkaEnd | SortEdges | PointRowsJob | TouchJob | FillRuntsJob | ReadbackJob | LinkageJob | LayoutJob) => {
  switch (m.kind) {
    case 'readback':
      answer(() => runReadbackJob(m), { id: m.id });
      return;
    case 'fill-runts':
      answer(() => runFillRuntsJob(m), { id: m.id });
      return;
    case 'linkage':
      answer(() => runLinkageJob(m), { id: m.id });
      return;
    case 'condense-layout':
      answer(() => runLayoutJob(m), { id: m.id });
      return;
    case 'touch-pages':
      answer(() => touchPages(m), { id: m.id });
      return;
    case 'cluster-points':
      answer(() => runPointRowsJob(m), { id: m.id });
      return;
    case 'knn':
      answer(() => ({ id: m.id, queries: runJob(m) }), { id: m.id, queries: 0 });
      return;
    case 'boruvka-setup':
      round = null;
      setupError = null;
      try {
        round = workerRound(m);
      } catch (e) {
        setupError = describe(e);
      }
      return;
    case 'boruvka-phase':
      answer(() => {
        if (round === null) throw new Error(setupError ?? 'a Borůvka phase came before its setup.');
        return { id: m.id, chunks: round(m) };
      }, { id: m.id, chunks: 0 });
      return;
    case 'sort-edges':
      answer(() => {
        sortEdgesCanonical(m.edges, m.into);
        return { id: m.id, chunks: 0 };
      }, { id: m.id, chunks: 0 });
      return;
    case 'boruvka-end':
      round = null;
      setupError = null;
      return;
  }
});

/** Claims chunks of `job.chunk` Morton positions until all n are taken; returns the number of queries run. */
function runJob(job: NeighbourJob): number {
  const { bvh, k, period, next, chunk } = job;
  const n = bvh.n;
  const search = new KnnSearch(bvh, k, period);
  const lists = { k, keys: job.keys, points: job.points };
  let queries = 0;
  for (;;) {
    const first = Atomics.add(next, 0, 1) * chunk;
    if (first >= n) return queries;
    const end = Math.min(first + chunk, n);
    for (let q = first; q < end; q++) search.run(q, lists);
    queries += end - first;
  }
}
