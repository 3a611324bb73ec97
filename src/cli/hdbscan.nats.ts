/**
 * `treeline hdbscan a.npy b.npy … -o outdir/ --nats <url>`: each file of a batch clustered by a `treeline worker`
 * (issue 20, §3). The worker runs the batch's own per-file step (hdbscanFile: read, cluster, write the output
 * atomically) on the paths it is sent, made absolute here — so the workers must see the coordinator's files at the
 * same paths: one host, or a filesystem shared by the hosts (NFS, Lustre). The outputs are the bytes the local batch
 * writes; each file's summary comes back for stderr. A file redelivered after a worker died is clustered again and
 * its output replaced whole.
 */
import { resolve } from 'node:path';
import type { TaskEnv, TaskMessage } from '../distributed/types.js';
import { heldThreads } from '../host/threads.js';
import { MAX_DEFAULT_HOST_THREADS, MAX_DEFAULT_THREADS } from '../host/thresholds.js';
import { hdbscanFile, type BatchItem, type HdbscanBatchRunners } from './hdbscan.batch.js';
import { logHdbscanRun, type HdbscanCliOptions } from './hdbscan.js';
import type { NatsCliOptions } from './nats.js';
import { closeBatchRun, openBatchRun } from './nats.batch.js';

/** Files a batch keeps on the queue at once. */
const IN_FLIGHT = 256;

/** The options a worker runs a file with: the command's own, without the connection's. */
function fileOptions(o: HdbscanCliOptions & NatsCliOptions): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o)) {
    if (!key.startsWith('nats') && value !== undefined) own[key] = value;
  }
  return own;
}

export interface HdbscanNatsRun {
  runners: HdbscanBatchRunners;
  /** Takes its queued tasks off the queue, removes the run's objects and disconnects (closeBatchRun). */
  close(): Promise<void>;
}

/** Connects and returns the runner hdbscanBatch takes. */
export async function hdbscanNatsRunners(
  o: HdbscanCliOptions & NatsCliOptions,
  log: (line: string) => void,
): Promise<HdbscanNatsRun> {
  const batch = await openBatchRun(o, 'hdbscan', log);
  const { run, jobs } = batch;
  log(`hdbscan: run ${run} on the workers at ${o.nats}`);
  return {
    runners: {
      concurrency: IN_FLIGHT,
      // An interrupt (env.signal) stops the wait at once; close() then takes the files still queued off the queue (a
      // file already in a worker's hands is finished there and written whole).
      async file(item: BatchItem, each: HdbscanCliOptions, env) {
        const reply = await jobs.submit(
          'hdbscanFile',
          undefined,
          {
            meta: {
              item: { input: resolve(item.input), output: resolve(item.output) },
              options: fileOptions(each) as TaskMessage['meta'],
            },
            arrays: {},
          },
          env.signal,
        );
        return (reply.meta.summary as string[]) ?? [];
      },
    },
    close: () => closeBatchRun(batch),
  };
}

/** The worker's side: one file clustered and written with the worker's backend; replies with its summary lines. */
export async function hdbscanFileTask(msg: TaskMessage, env: TaskEnv): Promise<TaskMessage> {
  const item = msg.meta.item as unknown as BatchItem;
  const o = {
    ...(msg.meta.options as unknown as HdbscanCliOptions),
    backend: env.backend,
    ...(env.threads ? { threads: env.threads } : {}),
  };
  const summary: string[] = [];
  const io = { out: () => {}, log: (m: string) => void summary.push(m) };
  // Without --threads, hdbscan()'s default (at most 16 beside a GPU MST, 8 beside a CPU one) held to the worker's share
  // of its host, from the file's size (as the partition tasks hold theirs).
  const max = env.backend === 'cpu' ? MAX_DEFAULT_THREADS : MAX_DEFAULT_HOST_THREADS;
  const { run, where } = await hdbscanFile(io, item, o, {
    ...(env.gpu ? { gpu: env.gpu } : {}),
    warn: io.log,
    threadsFor: (n) => heldThreads(env.hostThreads, n, max),
    // Its read held the same (a large body's reads in flight): --threads, else the share.
    readThreads: env.threads ?? env.hostThreads,
  });
  logHdbscanRun(io, run, where, o);
  return { meta: { summary }, arrays: {} };
}
