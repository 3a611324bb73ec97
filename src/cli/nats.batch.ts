/**
 * The run a batch command (`treeline hdbscan a b … --nats`, `treeline stats … --nats`) opens on the server: the
 * connection, a fresh run id and its job queue (src/distributed/nats.jobs.ts), with a line logged when tasks wait
 * with no result (no workers running?). The two commands' runners (hdbscan.nats.ts, stats.nats.ts) start from it.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { checkRunId, connectNats } from '../distributed/nats.js';
import { NatsJobs } from '../distributed/nats.jobs.js';
import { natsOptionsOf, type NatsCliOptions } from './nats.js';

export interface BatchRun {
  nc: NatsConnection;
  run: string;
  jobs: NatsJobs;
}

/** Connects as `treeline <command>` and opens a fresh run named after the command; closes the connection on failure. */
export async function openBatchRun(
  o: NatsCliOptions,
  command: 'hdbscan' | 'stats',
  log: (line: string) => void,
): Promise<BatchRun> {
  const nc = await connectNats(natsOptionsOf(o, `treeline ${command}`));
  const run = checkRunId(`${command}-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 6).toString(36)}`);
  try {
    const jobs = await NatsJobs.open(nc, run, {
      fresh: true,
      epoch: run,
      onStall: (pending, seconds) =>
        log(`${command}: ${pending} tasks waiting, no result for ${seconds} s: are workers running on ${o.nats}?`),
    });
    return { nc, run, jobs };
  } catch (e) {
    await nc.close();
    throw e;
  }
}

/**
 * Ends a batch run, whether it finished, failed or was interrupted: no task is published after this, the tasks still
 * queued are taken off the queue (a batch is never resumed: its run id is new each time, so they would be computed
 * for nobody, an hdbscan file written after the Ctrl-C), then the run's objects go and the connection closes. A
 * failure of the last three steps is passed over: the command's own outcome stands.
 */
export async function closeBatchRun({ nc, jobs }: BatchRun): Promise<void> {
  await jobs.close();
  await jobs.withdraw().catch(() => 0);
  await jobs.destroyStore().catch(() => {});
  await nc.drain().catch(() => nc.close());
}
