/**
 * `treeline worker --nats <url>`: a long-running process that answers the distributed engine's tasks (issue 20, §1;
 * the loop is src/distributed/worker.ts). One per GPU on a multi-GPU host (`--gpu <index>`: worker.gpu.ts says how),
 * or one per host with the CPU backend. SIGTERM or SIGINT: the task in hand finishes and is acked, then the worker
 * exits 0; a second signal exits at once (the task is redelivered to another worker after the ack wait).
 */
import { Command } from 'commander';
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { GpuUnavailableError } from '../errors.js';
import { noteCpuFallback } from '../gpu/fallback.js';
import { runWorker } from '../distributed/worker.js';
import { selectGpu } from './worker.gpu.js';
import { BATCH_TASKS } from '../distributed/worker.tasks.js';
import { hdbscanFileTask } from './hdbscan.nats.js';
import { PARTITION_TASKS } from '../distributed/partition.tasks.js';
import { addBackendOption, addThreadsOption, integer, type Backend } from './options.js';
import { addNatsOptions, natsOptionsOf, type NatsCliOptions } from './nats.js';
import type { CliIo } from './program.js';

interface WorkerCliOptions extends NatsCliOptions {
  backend: Backend;
  gpu?: number;
  threads?: number;
  ackWait: number;
  maxAttempts: number;
}

/** The backend's GPU context, made once for the worker's life (none under 'cpu', or 'auto' without a GPU). */
async function workerGpu(backend: Backend): Promise<GpuContext | undefined> {
  if (backend === 'cpu') return undefined;
  try {
    return await createGpuContext({ hardwareOnly: backend === 'auto' });
  } catch (e) {
    if (!(e instanceof GpuUnavailableError) || backend === 'gpu') throw e;
    noteCpuFallback('worker', e.message);
    return undefined;
  }
}

export function workerCommand(io: CliIo): Command {
  const cmd = new Command('worker').description(
    'answer distributed tasks from a NATS JetStream server (partitioned EMST, batches) until SIGTERM',
  );
  addNatsOptions(cmd, '', true);
  addBackendOption(cmd);
  addThreadsOption(cmd);
  return cmd
    .option(
      '--gpu <index>',
      "this worker's GPU on a multi-GPU host (0-based, PCI order as nvidia-smi)",
      integer('--gpu', 0),
    )
    .option(
      '--ack-wait <seconds>',
      "seconds before a silent worker's task goes to another worker (heartbeats every sixth of it)",
      integer('--ack-wait', 1),
      30,
    )
    .option(
      '--max-attempts <k>',
      'deliveries of a failing task before the run fails with its error',
      integer('--max-attempts', 1),
      3,
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ treeline worker --nats nats://127.0.0.1:4222 --backend cpu',
        '  $ treeline worker --nats nats://10.0.0.1:4222 --gpu 1 --nats-creds worker.creds --nats-tls-ca ca.pem',
      ].join('\n'),
    )
    .action(async (o: WorkerCliOptions) => {
      if (o.gpu !== undefined) io.log(`worker: ${selectGpu(o.gpu)}`);
      const gpu = await workerGpu(o.gpu !== undefined && o.backend === 'auto' ? 'gpu' : o.backend);
      const controller = new AbortController();
      const onSignal = (signal: NodeJS.Signals): void => {
        if (controller.signal.aborted) {
          // A second signal: give up the task in hand (it is redelivered after the ack wait) and end as the signal does.
          detach();
          process.kill(process.pid, signal);
          return;
        }
        io.log(`worker: ${signal}: finishing the task in hand, then exiting`);
        controller.abort();
      };
      const onTerm = (): void => onSignal('SIGTERM');
      const onInt = (): void => onSignal('SIGINT');
      const detach = (): void => {
        process.off('SIGTERM', onTerm);
        process.off('SIGINT', onInt);
      };
      process.on('SIGTERM', onTerm);
      process.on('SIGINT', onInt);
      try {
        const summary = await runWorker({
          ...natsOptionsOf(o, 'treeline worker'),
          env: {
            backend: gpu ? 'gpu' : o.backend === 'gpu' ? 'gpu' : 'cpu',
            threads: o.threads,
            ...(gpu ? { gpu } : {}),
          },
          partitionTasks: PARTITION_TASKS,
          batchTasks: { ...BATCH_TASKS, hdbscanFile: hdbscanFileTask },
          ackWaitMs: o.ackWait * 1000,
          maxAttempts: o.maxAttempts,
          signal: controller.signal,
          log: io.log,
        });
        io.log(
          `worker: stopped (${summary.done} done, ${summary.failed} failed, ${summary.retried} returned for a retry)`,
        );
      } finally {
        detach();
        await gpu?.destroy();
      }
    });
}
