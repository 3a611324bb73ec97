/**
 * The one worker entry of treeline's host threads (src/host/threads.ts starts it; built as dist/worker.js): each
 * message is dispatched by its `kind` to the job table of the folder that owns the work, and its reply posted back.
 *
 *   host/buffers.ts             touch-pages        first touch of shared buffers' pages ahead of their use
 *   emst/neighbours.threads.ts  knn                the CPU backend's k-NN phase, by claimed chunks
 *   emst/boruvka.threads.ts     boruvka-*, sort-edges  the CPU backend's Borůvka phases and edge sort
 *   cluster/linkage.threads.ts  linkage            a share of single linkage's steps
 *   cluster/condense.threads.ts condense-layout, fill-runts  condensing's layout and its runts
 *   cluster/pointResults.threads.ts cluster-points  a range of the labelling pass
 *   distributed/partition.threads.ts partition-*   the coordinator's split of the points into partitions
 *   distributed/tasks.threads.ts pair-*, forest-*   a worker's 'pair' and 'forest' tasks' per-edge passes
 *   distributed/contract.threads.ts contract-*     the 'forest' task's contraction: its terminals' Steiner tree
 *   distributed/sort.threads.ts forest-sort         the 'forest' task's canonical sort, by ranges of one weight
 *   distributed/merge.threads.ts merge-range, sorted-check  the coordinator's last merge of method 'pairs', and
 *                                                  its check of the forests' sorted lists
 *   distributed/nats.local.threads.ts local-write  a same-host folder's message file, its shared arrays' bytes
 *   datasets/generate.threads.ts generate-range    a range of the 'uniform' and 'normal' generators' values
 *   bench/check.threads.ts      check-*            the EMST bench's host checks (spanning tree, spatial halves)
 *   io/points.stream.threads.ts read-pieces        a large .npy/.bin body read and checked into shared points
 *
 * It sits above every folder it dispatches to, so no folder imports another's worker code. Node only: never
 * imported by the library's entry points.
 */
import type { MessagePort } from 'node:worker_threads';
import { checkJobs } from './bench/check.threads.js';
import { condenseJobs } from './cluster/condense.threads.js';
import { generateJobs } from './datasets/generate.threads.js';
import { linkageJobs } from './cluster/linkage.threads.js';
import { pointResultsJobs } from './cluster/pointResults.threads.js';
import { partitionJobs } from './distributed/partition.threads.js';
import { taskJobs } from './distributed/tasks.threads.js';
import { contractJobs } from './distributed/contract.threads.js';
import { orderJobs } from './distributed/order.threads.js';
import { sortJobs } from './distributed/sort.threads.js';
import { mergeJobs } from './distributed/merge.threads.js';
import { localFileJobs } from './distributed/nats.local.threads.js';
import { boruvkaJobs } from './emst/boruvka.threads.js';
import { neighbourJobs } from './emst/neighbours.threads.js';
import { hostJobs } from './host/buffers.js';
import { ioJobs } from './io/points.stream.threads.js';
import type { JobTable, WorkerReply } from './host/threads.js';
import { fromWire, toWire } from './host/wire.js';

// A computed specifier, like every node: import of the library (test/cpu/package.test.ts checks that).
const moduleName = 'node:worker_threads';
const { parentPort } = (await import(/* @vite-ignore */ moduleName)) as { parentPort: MessagePort | null };
if (parentPort === null) throw new Error('treeline: worker.js must run as a worker thread.');
const port = parentPort;

const tables: JobTable[] = [
  hostJobs,
  neighbourJobs,
  boruvkaJobs,
  linkageJobs,
  condenseJobs,
  pointResultsJobs,
  partitionJobs,
  taskJobs,
  contractJobs,
  orderJobs,
  sortJobs,
  mergeJobs,
  localFileJobs,
  generateJobs,
  checkJobs,
  ioJobs,
];
const jobs = new Map<string, (message: { kind: string; id: number }) => WorkerReply | void>();
for (const table of tables) {
  for (const [kind, run] of Object.entries(table))
    jobs.set(kind, run as (message: { kind: string; id: number }) => WorkerReply | void);
}

const describe = (e: unknown) => {
  const error = e instanceof Error ? e : new Error(String(e));
  return error.stack ?? error.message;
};

port.on('message', (received: { kind: string; id: number }) => {
  let reply: WorkerReply | void;
  // Shared views arrive as (buffer, offset, length) and are rebuilt here (host/wire.ts).
  const m = fromWire(received);
  try {
    const run = jobs.get(m.kind);
    if (run === undefined) throw new Error(`no job of kind '${m.kind}'.`);
    reply = run(m);
  } catch (e) {
    reply = { id: m.id, error: describe(e) };
  }
  // A message that wants no reply (a Borůvka run's setup and end) answers nothing.
  if (reply !== undefined) port.postMessage(toWire(reply));
});
