/**
 * `treeline worker --nats <url>`: a long-running process that answers the distributed engine's tasks (issue 20, §1;
 * the loop is src/distributed/worker.ts). One per GPU on a multi-GPU host (`--gpu <index>`: worker.gpu.ts says how),
 * or one per host with the CPU backend. SIGTERM or SIGINT: the task in hand finishes and is acked, then the worker
 * exits 0; a second signal exits at once (the task is redelivered to another worker after the ack wait).
 */
import { Command } from 'commander';
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { ConnectionClosedError, GpuUnavailableError } from '../errors.js';
import { noteCpuFallback } from '../gpu/fallback.js';
import { runWorker } from '../distributed/worker.js';
import { selectGpu } from './worker.gpu.js';
import { BATCH_TASKS } from '../distributed/worker.tasks.js';
import { hdbscanFileTask } from './hdbscan.nats.js';
import { PARTITION_TASKS } from '../distributed/partition.tasks.js';
import { emst } from '../emst/emst.js';
import { addBackendOption, addThreadsOption, integer, type Backend } from './options.js';
import { addNatsOptions, natsOptionsOf, type NatsCliOptions } from './nats.js';
import type { CliIo } from './program.js';

interface WorkerCliOptions extends NatsCliOptions {
  backend: Backend;
  gpu?: number;
  threads?: number;
  ackWait: number;
  maxAttempts: number;
  /** --no-nats-local: false. */
  natsLocal?: boolean;
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

/**
 * One small 3D EMST on the worker's GPU before its first task, so that the kernels' pipelines are made while the
 * worker waits (the first 'pair' task's GPU part took 2.4–2.6 s against 1.1–1.8 s for the next ones on the H200 x2
 * host, session 14). The points: a jittered 16³ grid, fixed; the result is checked for its edge count only.
 */
async function warmUp(gpu: GpuContext): Promise<number> {
  const t0 = performance.now();
  const side = 16;
  const points = new Float32Array(3 * side ** 3);
  for (let i = 0, s = 1; i < side ** 3; i++) {
    for (let d = 0; d < 3; d++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      points[3 * i + d] = (Math.floor(i / side ** d) % side) + s / 2 ** 33;
    }
  }
  const tree = await emst(points, { dim: 3, backend: 'gpu', gpu });
  if (tree.weights.length !== side ** 3 - 1) {
    throw new Error(`worker: the GPU's warm-up EMST gave ${tree.weights.length} edges, expected ${side ** 3 - 1}.`);
  }
  return performance.now() - t0;
}

export function workerCommand(io: CliIo): Command {
  const cmd = new Command('worker').description(
    'answer distributed tasks from a NATS JetStream server (partitioned EMST, batches) until SIGTERM',
  );
  addNatsOptions(cmd, '', true);
  addBackendOption(cmd);
  addThreadsOption(
    cmd,
    "host threads of each task (default: this worker's share of the host — its cores alone, 3/4 of the cores shared out among the workers on this host when several, counted through the server at each task's start — at most 16)",
  );
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
    .option(
      '--no-nats-local',
      "read partitions through the object store even where the coordinator's folder on this host is visible (--nats-local-dir)",
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
      if (gpu) io.log(`worker: GPU kernels made (a warm-up EMST, ${(await warmUp(gpu)).toFixed(0)} ms)`);
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
          local: o.natsLocal !== false,
          signal: controller.signal,
          log: io.log,
        });
        // The dropped tasks (of runs that are gone, or no tasks) only where there were some.
        const dropped = summary.dropped > 0 ? `, ${summary.dropped} dropped` : '';
        io.log(
          `worker: stopped (${summary.done} done, ${summary.failed} failed, ${summary.retried} returned for a retry${dropped})`,
        );
        // Not asked to stop: a failure exit, so that a supervisor (systemd's Restart=on-failure) starts it again.
        if (summary.closed) {
          throw new ConnectionClosedError(`the connection to ${o.nats} closed for good: the worker stopped`);
        }
      } finally {
        detach();
        await gpu?.destroy();
      }
    });
}
