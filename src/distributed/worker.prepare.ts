/**
 * A worker's answer to a 'pairs' run's size, told by its coordinator before it partitions (PREPARE_SUBJECT: { run, n,
 * dim, k, euclidean }): the run's tasks' scratch taken and, on the GPU, one EMST of a pair's size made meanwhile
 * (partition.tasks.ts prepareRun), so that its first pair and forest do not take them. A partition task waits for
 * ready() first (it would take the same pages itself).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { PREPARE_SUBJECT } from './nats.js';
import { prepareRun, TASK_THREADS_MAX } from './partition.tasks.js';
import type { TaskEnv } from './types.js';
import { messageOf } from '../errors.js';

export interface Preparation {
  /** Resolves once every preparation told so far has ended (never rejects: failures are logged). */
  ready(): Promise<void>;
  stop(): void;
}

/**
 * Listens for run sizes on `nc`. `share()`: the worker's share of its host's threads now; `busy()`: whether a task is
 * in hand, in which case the GPU is not warmed (a second pair-sized EMST beside the task's own GPU work: a resumed
 * run's size told while its earlier tasks run, or two runs at once) — its scratch is still taken.
 */
export function subscribePrepare(
  nc: NatsConnection,
  env: TaskEnv,
  share: () => number,
  log: (line: string) => void,
  busy: () => boolean,
): Preparation {
  let preparing: Promise<void> = Promise.resolve();
  // By the size as told: a run id run again on other points is prepared again.
  const prepared = new Set<string>();
  const sub = nc.subscribe(PREPARE_SUBJECT, {
    callback: (_err, msg) => {
      let size: { run?: unknown; n?: unknown; dim?: unknown; k?: unknown; euclidean?: unknown };
      try {
        size = JSON.parse(new TextDecoder().decode(msg.data));
      } catch {
        return;
      }
      const { run, n, dim, k, euclidean } = size;
      const whole = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x > 0;
      if (typeof run !== 'string' || !whole(n) || !whole(dim) || !whole(k)) return;
      const key = `${run} ${n} ${dim} ${k}`;
      if (prepared.has(key)) return;
      prepared.add(key);
      // Without --threads, the slots of the tasks' threaded passes are taken whatever this worker's share is now: it
      // may change before the tasks come (a worker starting or stopping on this host), and a task whose share is one
      // thread takes plain arrays of its own for those passes (Scratch grows or replaces a slot on demand). The pages
      // are touched on the share's threads. The pairs' MSTs are Euclidean ones only on the GPU (a
      // mutual-reachability run's are the CPU backend's; an older coordinator does not say: Euclidean).
      preparing = preparing
        .then(() => {
          const idle = !busy();
          return prepareRun(n, dim, k, env, {
            slotThreads: env.threads ?? TASK_THREADS_MAX,
            touchThreads: env.threads ?? share(),
            euclidean: euclidean !== false,
            warm: idle,
          }).then((r) => ({ ...r, idle }));
        })
        .then(
          ({ bytes, touched, warmed, idle }) => {
            const gb = (bytes / 1e9).toFixed(1);
            log(
              touched instanceof Error
                ? `worker: scratch for run ${run} not taken: ${messageOf(touched)}`
                : `worker: scratch for run ${run} taken (${gb} GB) in ${touched.toFixed(0)} ms`,
            );
            if (warmed instanceof Error) log(`worker: GPU not warmed for run ${run}: ${messageOf(warmed)}`);
            else if (warmed !== null) {
              log(
                `worker: GPU warmed for run ${run} (an EMST of ${warmed.points} stand-in points) in ${warmed.ms.toFixed(0)} ms`,
              );
            } else if (!idle && env.backend === 'gpu') log(`worker: GPU not warmed for run ${run}: a task in hand`);
          },
          (e) => log(`worker: scratch for run ${run} not taken: ${messageOf(e)}`),
        );
    },
  });
  return {
    ready: () => preparing,
    stop: () => sub.unsubscribe(),
  };
}
