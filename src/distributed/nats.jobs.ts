/**
 * The coordinator's side of the task queue (issue 20): publish a task, wait for its stored result. Used by the
 * partitioned EMST's executor (coordinator.ts) and by batches of whole jobs (realisations, files).
 *
 * Each task is published once per id (its content's hash, nats.tasks.ts) with that id as JetStream's message id,
 * so a publish repeated within the stream's duplicate window is dropped by the server; a task whose result is
 * already in the run's object store (a restarted coordinator asking again) is answered from there without being
 * published. Results are awaited through the workers' `treeline.done.<run>` notes (which carry the result itself
 * when it fits one message), and, in case a note was missed (a reconnect), by looking for the result objects once a
 * second.
 *
 * Interrupts: submit's `signal` rejects the caller's wait with AbortError as soon as it aborts (the task itself stays
 * queued or in a worker's hands, and its result is stored for a resumption); close() ends every wait still pending
 * the same way and publishes nothing after it, so a stopped run leaves no promise waiting on a note that will never
 * be listened for; withdraw() takes a run's queued tasks off the queue where no resumption wants them (a batch; a
 * partitioned run that failed before its state was saved).
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { AbortError } from '../errors.js';
import { decodeTaskMessage, encodeTaskMessage } from './nats.codec.js';
import {
  bodyLimit,
  doneSubject,
  ensureTaskStream,
  jetstreamManagerOf,
  TASK_HEADER,
  TASK_STREAM,
  getMessage,
  putMessage,
  runBucket,
  taskSubject,
} from './nats.js';
import { contentId, messageOutcome, resultObject, taskObject, type TaskHeader } from './nats.tasks.js';
import { readMessageFile, removeLocal, stubOf, type LocalLink } from './nats.local.js';
import type { TaskMessage } from './types.js';

const STALL_SECONDS = 30;

/** A task's failure as the worker reported it. */
export class TaskFailedError extends Error {
  override name = 'TaskFailedError';
  constructor(
    readonly task: string,
    readonly workerMessage: string,
  ) {
    super(`task ${task} failed on its worker: ${workerMessage}`);
  }
}

/** Per signal, the waits to end when it aborts: one listener on the signal for all (Node warns past 10 of them). */
const abortWaits = new WeakMap<AbortSignal, Set<() => void>>();

function whenAborted(signal: AbortSignal, end: () => void): () => void {
  let ends = abortWaits.get(signal);
  if (!ends) {
    const all = (ends = new Set());
    abortWaits.set(signal, all);
    signal.addEventListener('abort', () => {
      for (const f of all) f();
      all.clear();
    });
  }
  ends.add(end);
  return () => abortWaits.get(signal)?.delete(end);
}

/**
 * `wait`, or AbortError(`what` was aborted) as soon as `signal` aborts (at once if it has): the caller stops waiting,
 * `wait` goes on (its rejection, if any, is then handled here). Without a signal, `wait` itself.
 */
export function untilAborted<T>(wait: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return wait;
  const error = (): AbortError => new AbortError(`${what} was aborted.`);
  if (signal.aborted) {
    wait.catch(() => undefined);
    return Promise.reject(error());
  }
  return new Promise<T>((resolve, reject) => {
    const off = whenAborted(signal, () => reject(error()));
    wait.then(resolve, reject).finally(off);
  });
}

/** What went over the network for this run's tasks (bodies and results, as encoded). */
export interface JobTraffic {
  tasks: number;
  /** Tasks answered from results already stored (a resumed run). */
  reused: number;
  bytesSent: number;
  bytesReceived: number;
  /** Bytes passed as files in the same-host folder instead (nats.local.ts): partitions written, results read. */
  localBytes: number;
}

export class NatsJobs {
  readonly traffic: JobTraffic = { tasks: 0, reused: 0, bytesSent: 0, bytesReceived: 0, localBytes: 0 };
  /** The same-host folder every task's header names (coordinator.ts), or null: the object store alone. */
  local: LocalLink | null = null;
  /**
   * Appended to every message id (JetStream's duplicate check): new at a fresh start, the first start's again on a
   * resume (open(); the coordinator keeps it in the run's state).
   */
  publication = '';
  private readonly js: JetStreamClient;
  private readonly pending = new Map<
    string,
    { resolve: (result?: Uint8Array) => void; reject: (error: AbortError) => void }
  >();
  private readonly inFlight = new Map<string, Promise<TaskMessage>>();
  private sub: Subscription | null = null;
  private onStall?: (pending: number, seconds: number) => void;
  /** When a result last came (or the last stall was told). */
  private lastNews = Date.now();
  private poller: ReturnType<typeof setInterval> | null = null;
  /** close() was called: no task is published after it, and no wait outlives it. */
  private closed = false;

  private constructor(
    readonly nc: NatsConnection,
    readonly run: string,
    readonly store: ObjectStore,
    readonly epoch: string | undefined,
  ) {
    this.js = jetstream(nc);
  }

  /**
   * Opens run `run`'s object store and starts listening for its results. `fresh`: remove whatever the store held
   * first, and the run's tasks still queued from an earlier start (a run id used again from the start). `epoch`: told
   * to the workers with every task (TaskHeader.epoch).
   */
  static async open(
    nc: NatsConnection,
    run: string,
    options: {
      fresh?: boolean;
      epoch?: string;
      /**
       * Not fresh: the message-id suffix of the run's first start (its `publication`), so that the tasks a resumed run
       * publishes again while the first start's are still queued are dropped by the server as the repeats they are.
       */
      publication?: string;
      /** Told when tasks are pending and no result came for 30 s (no worker running? all busy?). */
      onStall?: (pending: number, seconds: number) => void;
    } = {},
  ): Promise<NatsJobs> {
    await ensureTaskStream(await jetstreamManagerOf(nc));
    const objm = new Objm(nc);
    if (options.fresh) {
      let earlier = true;
      try {
        await (await objm.open(runBucket(run))).destroy();
      } catch {
        earlier = false; // there was none
      }
      // A run id started over (its folder lost, or run again once done) may still have tasks of its earlier start on
      // the queue: computed, they would ask for partitions of a folder that is gone and results nobody reads. Not
      // needed for a new id (every batch's); a purge refused (an account without the permission) or timed out leaves
      // them, as before.
      if (earlier) {
        await (
          await jetstreamManagerOf(nc)
        ).streams
          .purge(TASK_STREAM, { filter: taskSubject(run) })
          .catch(() => undefined);
      }
    }
    const store = await objm.create(runBucket(run));
    const jobs = new NatsJobs(nc, run, store, options.epoch);
    // A fresh start of a run id publishes its tasks anew: the same content under the same id (the same points run
    // again after the first run finished, or after its folder was lost) would otherwise be dropped by the server as
    // repeats of the earlier run's messages within its duplicate window, and never computed.
    jobs.publication = options.fresh
      ? `.${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`
      : (options.publication ?? '');
    jobs.onStall = options.onStall;
    jobs.listen();
    return jobs;
  }

  private listen(): void {
    this.sub = this.nc.subscribe(doneSubject(this.run), {
      callback: (_err, msg) => {
        const id = msg.headers?.get(TASK_HEADER);
        if (id) this.pending.get(id)?.resolve(msg.data.length > 0 ? msg.data : undefined);
      },
    });
    this.poller = setInterval(() => {
      const quiet = (Date.now() - this.lastNews) / 1000;
      if (this.pending.size > 0 && quiet >= STALL_SECONDS) {
        this.onStall?.(this.pending.size, Math.round(quiet));
        this.lastNews = Date.now();
      }
      for (const [id, p] of this.pending) {
        // A failed look (a reconnect in progress) is tried again next second.
        this.store.info(resultObject(id)).then(
          (info) => info !== null && p.resolve(),
          () => {},
        );
      }
    }, 1000);
  }

  /**
   * Runs task `kind` (on `partition`'s points when given) and resolves with its reply; rejects with its error, or with
   * AbortError as soon as `signal` aborts (nothing is published once it has) or the jobs are closed.
   */
  submit(kind: string, partition: number | undefined, msg: TaskMessage, signal?: AbortSignal): Promise<TaskMessage> {
    const id = `${kind}-${partition ?? 'x'}-${contentId(kind, partition, msg, this.epoch)}`;
    const what = `waiting for task ${id} of run ${this.run}`;
    if (signal?.aborted) return Promise.reject(new AbortError(`${what} was aborted.`));
    let result = this.inFlight.get(id);
    if (!result) {
      result = this.runTask(id, kind, partition, msg).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, result);
    }
    return untilAborted(result, signal, what);
  }

  private async runTask(
    id: string,
    kind: string,
    partition: number | undefined,
    msg: TaskMessage,
  ): Promise<TaskMessage> {
    // A second attempt only where a stored result named a file in the same-host folder that is gone (a resumed run
    // whose folder lost it): the stub is removed and the task computed again.
    for (let attempt = 0; ; attempt++) {
      let resolve!: (result?: Uint8Array) => void;
      let reject!: (error: AbortError) => void;
      const promise = new Promise<Uint8Array | undefined>((res, rej) => {
        resolve = res;
        reject = rej;
      }).finally(() => (this.lastNews = Date.now()));
      promise.catch(() => undefined); // awaited below once published; a close() before that is seen there
      if (this.closed) throw this.closedError(id);
      this.pending.set(id, { resolve, reject });
      let inline: Uint8Array | undefined;
      try {
        if ((await this.store.info(resultObject(id))) !== null) {
          this.traffic.reused++;
        } else {
          const header: TaskHeader = {
            run: this.run,
            id,
            kind,
            ...(this.epoch !== undefined ? { epoch: this.epoch } : {}),
            ...(partition !== undefined ? { partition } : {}),
            ...(this.local ? { local: this.local } : {}),
          };
          let body = encodeTaskMessage({ meta: { task: { ...header }, meta: msg.meta }, arrays: msg.arrays });
          if (body.length > bodyLimit(this.nc)) {
            this.traffic.bytesSent += await putMessage(this.store, taskObject(id), msg, bodyLimit(this.nc));
            body = encodeTaskMessage({ meta: { task: { ...header, stored: true } }, arrays: {} });
          }
          // Important! A closed run (interrupted) publishes nothing more: no task is computed for nobody.
          if (this.closed) throw this.closedError(id);
          this.traffic.bytesSent += body.length;
          this.traffic.tasks++;
          const msgID = `${this.run}.${id}${this.publication}${attempt > 0 ? `.${attempt}` : ''}`;
          await this.js.publish(taskSubject(this.run), body, { msgID }).catch((e: unknown) => {
            // The server's refusal ('insufficient resources': JetStream's storage full) names neither: say which.
            throw new Error(`run ${this.run}: task ${id} (${kind}) could not be queued: ${(e as Error).message ?? e}`, {
              cause: e,
            });
          });
          inline = await promise;
        }
        // Results read into shared memory: the 'pairs' merge runs on the coordinator's threads over them.
        let stored = inline
          ? decodeTaskMessage(inline)
          : await getMessage(this.store, resultObject(id), { shared: true });
        if (stored === null) throw new Error(`task ${id}'s result vanished from run ${this.run}'s object store.`);
        const stub = stubOf(stored);
        if (stub) {
          const file = this.local ? await readMessageFile(this.local.dir, stub.file, { shared: true }) : null;
          if (file === null) {
            const where = this.local ? this.local.dir : "this run's same-host folder (none now)";
            if (attempt > 0) throw new Error(`task ${id}'s result file ${stub.file} is missing from ${where}.`);
            await this.store.delete(resultObject(id));
            continue;
          }
          this.traffic.localBytes += stub.bytes;
          stored = file;
        }
        const outcome = messageOutcome(stored);
        if ('error' in outcome)
          throw new TaskFailedError(
            `${kind}${partition !== undefined ? ` on partition ${partition}` : ''}`,
            outcome.error,
          );
        if (!stub) for (const a of Object.values(stored.arrays)) this.traffic.bytesReceived += a.byteLength;
        return outcome.reply;
      } finally {
        this.pending.delete(id);
      }
    }
  }

  private closedError(id: string): AbortError {
    return new AbortError(`run ${this.run} was closed while task ${id} waited for its result.`);
  }

  /**
   * Stops listening (the run's objects stay: `destroyStore` removes them); every wait still pending rejects with
   * AbortError and no task is published after this.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.sub?.unsubscribe();
    this.sub = null;
    for (const [id, p] of this.pending) p.reject(this.closedError(id));
    this.pending.clear();
  }

  /**
   * Removes the run's tasks still on the queue, those in a worker's hands included (that worker finishes its task,
   * and its acknowledgement finds nothing); returns how many. For a run given up that no resumption will want (a
   * batch: its run id is new each time), after close(): its queued tasks would otherwise be computed for nobody — an
   * hdbscan batch's files clustered and written after its Ctrl-C; a partitioned run that failed before its state was
   * saved (nothing can resume it). Not for a partitioned run that can resume: its queued tasks' results are what a
   * resumption reads.
   */
  async withdraw(): Promise<number> {
    const jsm = await jetstreamManagerOf(this.nc);
    return (await jsm.streams.purge(TASK_STREAM, { filter: taskSubject(this.run) })).purged;
  }

  /** Removes the run's object store (partitions, bodies, results) and its same-host folder. */
  async destroyStore(): Promise<void> {
    try {
      await this.store.destroy();
    } finally {
      // The folder holds shared memory: removed even where the store could not be (a failing connection).
      if (this.local) await removeLocal(this.local);
    }
  }
}
