/**
 * The tasks a `treeline worker` answers, by kind: the partitioned EMST's (PARTITION_TASKS, partition.tasks.ts: they
 * get the partition's points) and the batch tasks below (one whole job each: they get the message alone).
 *
 *   echo   the transport's own check (tests, `treeline worker` smoke runs): replies with the request's arrays and
 *          meta plus each array's sum; meta.fail = 'message' throws that message instead (the failure path);
 *          meta.sleepMs waits that long first (heartbeats, redelivery)
 *   mstStats  one catalogue's MST statistics on given bins: a `stats --compare` file or a --jitter / --subsample
 *          realisation (worker.stats.ts)
 */
import type { TaskEnv, TaskMessage } from './types.js';
import { statsTask } from './worker.stats.js';

/**
 * A task without a partition: what it needs is in the message, or in the run's object store, which `objects` reads
 * (each object once per run and worker).
 */
export type BatchTask = (
  msg: TaskMessage,
  env: TaskEnv,
  objects: (name: string) => Promise<TaskMessage>,
) => Promise<TaskMessage>;

export const BATCH_TASKS: Record<string, BatchTask> = {
  async echo(msg) {
    const { fail, sleepMs } = msg.meta;
    if (typeof sleepMs === 'number' && sleepMs > 0) await new Promise((r) => setTimeout(r, sleepMs));
    if (typeof fail === 'string') throw new Error(fail);
    const sums: Record<string, number> = {};
    for (const [name, a] of Object.entries(msg.arrays)) {
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i];
      sums[name] = s;
    }
    return { meta: { ...msg.meta, sums }, arrays: msg.arrays };
  },
  mstStats: statsTask,
};
