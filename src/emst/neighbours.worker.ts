/**
 * The worker thread of the split k-NN phase (neighbours.threads.ts): for every job it claims chunks of Morton
 * positions from the shared counter until none are left, runs the same queries as the single-threaded code
 * (neighbours.cpu.ts, KnnSearch) into the shared lists, and answers how many it ran.
 *
 * Node only: started by src/cpu/threads.ts, never imported by the library's entry points.
 */
import type { MessagePort } from 'node:worker_threads';
import { KnnSearch } from './neighbours.cpu.js';
import type { NeighbourJob, NeighbourReply } from './neighbours.threads.js';

// A computed specifier, like every node: import of the library (test/cpu/package.test.ts checks that).
const moduleName = 'node:worker_threads';
const { parentPort } = (await import(/* @vite-ignore */ moduleName)) as { parentPort: MessagePort | null };
if (parentPort === null) throw new Error('emst::neighbours: neighbours.worker.js must run as a worker thread.');
const port = parentPort;

port.on('message', (job: NeighbourJob) => {
  let reply: NeighbourReply;
  try {
    reply = { id: job.id, queries: runJob(job) };
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    reply = { id: job.id, queries: 0, error: error.stack ?? error.message };
  }
  port.postMessage(reply);
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
