/**
 * `treeline worker`'s loop (issue 20, §1 and §4): take one task at a time from the shared work-queue consumer,
 * compute it with the local backend, store its result in the run's object store, then ack.
 *
 *   next task ──▶ a redelivery whose result is stored? ──yes──▶ ack (its worker died between store and ack)
 *        │ no
 *        ▼
 *   body (inline, or task.<id> from the object store) + partition (partition.<p>, loaded once per run, cached)
 *        ▼
 *   handler (PARTITION_TASKS / BATCH_TASKS)   ── `working` every heartbeatMs, so the ack wait never runs out ──
 *        ▼
 *   result.<id> stored ──▶ ack ──▶ treeline.done.<run> (the coordinator's wake-up, with the result when it fits one
 *                                  message; the coordinator also polls the store)
 *
 * Faults. A worker that dies (kill -9) never acks: JetStream hands the task to another worker after the ack wait,
 * so a death costs that task only. A handler that throws is nak'ed (retried, by any worker, after a second) until
 * its `maxAttempts`-th delivery, which stores the error as the task's result: the coordinator then fails the run with
 * the worker's message. A task delivered more than maxAttempts times without ever finishing (every worker taking it
 * died) is failed the same way, naming that. A task that could not be started (its object store not opened, or not
 * read, during a reconnect) is retried and failed the same way; a failure the store does not take is told in the
 * task's note alone, so its coordinator does not wait for it. A message that is no task is dropped. A task of a run
 * that is gone (its object store removed: the run was deleted, or given up, while its tasks were queued or in hand) is
 * dropped — terminated with one log line, counted as dropped, neither done nor failed — before it is computed, or
 * when it fails (its result cannot be stored). Stopping (the signal: SIGTERM or SIGINT in the CLI) lets the task in
 * hand finish and be acked, then returns. A connection closed for good (connectNats reconnects forever, so the server
 * refused or closed it) returns too, with one line naming the task in hand: nothing can be stored or told any more, and
 * JetStream hands that task to another worker after its ack wait. Deliveries are counted as JetStream counts them,
 * except that a message this worker took before never counts less than one more than then (worker.deliveries.ts:
 * nats-server before 2.10.14 can hand a retried task out again as its first delivery).
 */
import type { JsMsg } from '@nats-io/jetstream';
import { jetstream } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import {
  bodyLimit,
  connectNats,
  doneSubject,
  ensureTaskQueue,
  getMessage,
  jetstreamManagerOf,
  putBytes,
  putMessage,
  runBucket,
  runGone,
  TASK_CONSUMER,
  TASK_HEADER,
  TASK_STREAM,
  type NatsOptions,
} from './nats.js';
import { decodeTaskMessage, decodeTaskMeta, encodedSize, encodeTaskMessage } from './nats.codec.js';
import { headers } from '@nats-io/transport-node';
import { outcomeMessage, resultObject, taskObject, type TaskHeader, type TaskOutcome } from './nats.tasks.js';
import { askFor, resultFile, writeMessageFile, type LocalLink } from './nats.local.js';
import type { PartitionData, PartitionTask, TaskEnv, TaskMessage } from './types.js';
import type { BatchTask } from './worker.tasks.js';
import { hostCores, HostPeers, hostThreadsLine, taskHostThreads } from './worker.host.js';
import { DeliveryCounts } from './worker.deliveries.js';
import { ObjectCache, sees, type PartitionSource } from './worker.cache.js';
import { subscribePrepare } from './worker.prepare.js';
import { messageOf } from '../errors.js';

export interface WorkerOptions extends NatsOptions {
  /** How the tasks compute (the worker owns `env.gpu`, if any). */
  env: TaskEnv;
  /** The handlers by kind. */
  partitionTasks: Record<string, PartitionTask>;
  batchTasks: Record<string, BatchTask>;
  /** The consumer's ack wait in ms (default 30 s): how long a dead worker's task waits before redelivery. */
  ackWaitMs?: number;
  /** `working` heartbeat period in ms (default ackWait / 6). */
  heartbeatMs?: number;
  /** Deliveries of one task before its failure is final (default 3). */
  maxAttempts?: number;
  /**
   * The period in ms of this worker's presence beats, by which the workers on one host count each other for their
   * default host threads (worker.host.ts; default PRESENCE_MS, 5 s; tests shorten it).
   */
  presenceMs?: number;
  /** Stops the loop after the task in hand. */
  signal?: AbortSignal;
  /** One line per task and per event (stderr in the CLI). */
  log?: (line: string) => void;
  /**
   * Use the coordinator's same-host folder where this process sees it (nats.local.ts; default true): partitions
   * read from its files, large results written there. false: the object store alone.
   */
  local?: boolean;
}

export interface WorkerSummary {
  /** Tasks this worker finished (results stored), failed for good, and returned (nak'ed for a retry). */
  done: number;
  failed: number;
  retried: number;
  /** Task messages it dropped (terminated, no result): of a run that is gone, or with no task header. */
  dropped: number;
  /** Present where the connection closed for good (the server refused or closed it), not the signal, ended it. */
  closed?: true;
}

/** The delay in ms before a task returned for a retry is delivered again. */
const RETRY_MS = 1000;

/**
 * How long one pull for the next task waits in ms (and so how long an idle worker takes to stop). Important! Not
 * RETRY_MS: a task returned for a retry would come back just as the pull its worker sent next runs out, and
 * nats-server before 2.10.14 hands a redelivery that finds its pull gone out again as a first delivery
 * (worker.deliveries.ts: Debian's 2.9.10 did so in 1 of 6 runs of distributed.worker's 'store never opened', pulls
 * and retries both 1 s). Half a second longer: it comes back inside the pull (the pull is sent after the nak), and an
 * idle worker stops within 1.5 s.
 */
const PULL_MS = RETRY_MS + 500;

/** The header of a task message; throws where the message is not one (no worker can read it). */
function headerOf(m: JsMsg): TaskHeader {
  const task = decodeTaskMeta(m.data).task as Partial<TaskHeader> | undefined;
  if (typeof task?.run !== 'string' || typeof task.id !== 'string' || typeof task.kind !== 'string') {
    throw new Error(`the message on ${m.subject} has no task header (run, id and kind).`);
  }
  return task as TaskHeader;
}

/**
 * How long in ms a worker takes a run for present once the server said so (runGone: a stream-info request, once a task
 * before): the run's tasks within it ask nothing more. "Gone" is never kept (a run id started over makes its store
 * again), and the look after a task's failure is always asked anew, so a removed run's tasks are still dropped — before
 * they start once this time has passed since the last answer, else when their results find no store.
 */
export const RUN_LOOK_MS = 1000;

/** Runs until `signal` aborts; resolves with what it did. */
export async function runWorker(o: WorkerOptions): Promise<WorkerSummary> {
  const log = o.log ?? (() => {});
  const ackWaitMs = o.ackWaitMs ?? 30_000;
  const heartbeatMs = o.heartbeatMs ?? Math.max(100, Math.floor(ackWaitMs / 6));
  const maxAttempts = o.maxAttempts ?? 3;
  const nc = await connectNats({ ...o, name: o.name ?? 'treeline worker' });
  const summary: WorkerSummary = { done: 0, failed: 0, retried: 0, dropped: 0 };
  let peers: HostPeers | null = null;
  try {
    // The workers on this host, counted at each task's start for its host threads (without --threads: worker.host.ts).
    const presence = await HostPeers.start(nc, { periodMs: o.presenceMs });
    peers = presence;
    const cores = await hostCores();
    const share = (): number => taskHostThreads(cores, presence.count());
    let told = '';
    /** The task's env: the worker's, with its share of the host where --threads is absent (told when it changes). */
    const taskEnv = (): TaskEnv => {
      if (o.env.threads !== undefined) return o.env;
      const workers = presence.count();
      const line = hostThreadsLine(cores, workers);
      if (line !== told) log((told = line));
      return { ...o.env, hostThreads: taskHostThreads(cores, workers) };
    };
    const jsm = await jetstreamManagerOf(nc);
    await ensureTaskQueue(jsm, ackWaitMs);
    const js = jetstream(nc);
    const objm = new Objm(nc);
    const stores = new Map<string, ObjectStore>();
    const storeOf = async (run: string): Promise<ObjectStore> => {
      let os = stores.get(run);
      if (!os) {
        os = await objm.open(runBucket(run));
        stores.clear();
        stores.set(run, os);
      }
      return os;
    };
    const cache = new ObjectCache();
    // Pair tasks in hand (0 or 1: one task at a time): the prefetch keeps looking for new partitions meanwhile.
    let pairsInHand = 0;
    const consumer = await js.consumers.get(TASK_STREAM, TASK_CONSUMER);
    const counts = new DeliveryCounts();
    // A 'pairs' run's size, told by its coordinator before it partitions: the tasks' scratch is taken (and the GPU
    // warmed) meanwhile, and a partition task waits for that to finish (it would take the same pages itself).
    let inTask = false;
    const preparation = subscribePrepare(nc, o.env, share, log, () => inTask);
    log(`worker: connected to ${o.url}, backend ${o.env.backend}${o.env.gpu ? ' (GPU context ready)' : ''}`);

    /**
     * Stores the outcome (what resume and a missed note read); returns its bytes when they fit one note (a larger one,
     * a forest's edges, is encoded into putMessage's kept buffer).
     */
    const finish = async (
      header: TaskHeader,
      os: ObjectStore,
      outcome: TaskOutcome,
      local: LocalLink | null = null,
    ): Promise<Uint8Array | undefined> => {
      const msg = outcomeMessage(outcome);
      if (local && 'reply' in outcome && encodedSize(msg) > bodyLimit(nc)) {
        // To the coordinator's folder, and a stub in the store in its place (what the note carries); where the file
        // cannot be written (the folder is full), through the store as elsewhere.
        const file = resultFile(header.id);
        const bytes = await writeMessageFile(local.dir, file, msg).catch((e) => {
          log(`worker: ${header.id}'s result goes through the object store: ${messageOf(e)}`);
          return -1;
        });
        if (bytes >= 0) {
          const stub = encodeTaskMessage({ meta: { localResult: { file, bytes } }, arrays: {} });
          await putBytes(os, resultObject(header.id), stub, bodyLimit(nc));
          return stub;
        }
      }
      if (encodedSize(msg) > bodyLimit(nc)) {
        await putMessage(os, resultObject(header.id), msg, bodyLimit(nc));
        return undefined;
      }
      const bytes = encodeTaskMessage(msg);
      await putBytes(os, resultObject(header.id), bytes, bodyLimit(nc));
      return bytes;
    };
    /** Tells the coordinator the task is done, with its outcome when that fits one message (saves it a read). */
    const notify = (header: TaskHeader, bytes?: Uint8Array): void => {
      const h = headers();
      h.set(TASK_HEADER, header.id);
      nc.publish(doneSubject(header.run), bytes && bytes.length <= bodyLimit(nc) ? bytes : new Uint8Array(0), {
        headers: h,
      });
    };

    /** The run last found present, and until when (performance.now()) that answer stands: RUN_LOOK_MS. */
    let present = { run: '', until: 0 };
    /**
     * Drops the task when its run is gone (its object store removed): nobody waits for its result, and none can be
     * stored. Terminated (no redelivery), told in one line, counted as dropped (neither done nor failed). `fresh`: ask
     * the server even where the run was found present within RUN_LOOK_MS (after a failure, which its removal explains).
     */
    const droppedIfGone = async (m: JsMsg, header: TaskHeader, what: string, fresh = false): Promise<boolean> => {
      if (!fresh && present.run === header.run && performance.now() < present.until) return false;
      const gone = await runGone(jsm, header.run);
      present = gone ? { run: '', until: 0 } : { run: header.run, until: performance.now() + RUN_LOOK_MS };
      if (!gone) return false;
      m.term();
      summary.dropped++;
      log(`worker: ${what} dropped: run ${header.run} is gone (its object store was removed)`);
      return true;
    };

    /**
     * Fails the task for good with `error`: stored as its result where the store takes it (`os`, else the run's store
     * opened again), and told in its note in any case, which carries the error where the store took nothing, so that
     * its coordinator does not wait for a result that will never come. Logged before the note goes.
     */
    const failForGood = async (
      m: JsMsg,
      header: TaskHeader,
      what: string,
      deliveries: number,
      os: ObjectStore | null,
      error: string,
    ): Promise<void> => {
      const bytes = await (os ? Promise.resolve(os) : storeOf(header.run))
        .then((store) => finish(header, store, { error }))
        .catch((e) => {
          log(`worker: ${what}'s failure is told in its note alone (not stored: ${messageOf(e)})`);
          return encodeTaskMessage(outcomeMessage({ error }));
        });
      m.term();
      log(`worker: ${what} failed for good (delivery ${deliveries} of ${maxAttempts}): ${error}`);
      notify(header, bytes);
      summary.failed++;
    };

    /**
     * A task that failed before its own try (its store not opened, its result's info not read: a reconnect), which is
     * not the task's fault: returned for a retry as a failed task is, and failed for good on its maxAttempts-th
     * delivery, so that no message comes back forever. Dropped where its run is gone.
     */
    const notStarted = async (
      m: JsMsg,
      header: TaskHeader,
      what: string,
      deliveries: number,
      e: unknown,
    ): Promise<void> => {
      if (await droppedIfGone(m, header, what, true)) return;
      const message = messageOf(e);
      await retryOrFail(
        m,
        header,
        what,
        deliveries,
        null,
        'could not be started',
        message,
        `task ${what} could not be started: ${message}`,
      );
    };

    /**
     * A task that `failed` (the log's words) with `message`: returned for a retry after RETRY_MS, or failed for good
     * with `error` on its maxAttempts-th delivery.
     */
    const retryOrFail = async (
      m: JsMsg,
      header: TaskHeader,
      what: string,
      deliveries: number,
      os: ObjectStore | null,
      failed: string,
      message: string,
      error: string,
    ): Promise<void> => {
      if (deliveries >= maxAttempts) {
        await failForGood(m, header, what, deliveries, os, error);
        return;
      }
      m.nak(RETRY_MS);
      summary.retried++;
      log(`worker: ${what} ${failed} (delivery ${deliveries} of ${maxAttempts}), returned for a retry: ${message}`);
    };

    const handle = async (m: JsMsg, header: TaskHeader, what: string, deliveries: number): Promise<void> => {
      // (A run deleted while this task was queued: nothing is read or computed. The store's handle may be cached.)
      if (await droppedIfGone(m, header, what)) return;
      const os = await storeOf(header.run);
      // A redelivery may be of work already stored (its worker died before the ack). A first delivery is not: the
      // coordinator looks for a stored result before it publishes.
      if (deliveries > 1 && (await os.info(resultObject(header.id))) !== null) {
        m.ack();
        notify(header);
        log(`worker: ${what} came back (delivery ${deliveries}) with its result stored: acked`);
        return;
      }
      const epoch = `${header.run}/${header.epoch ?? ''}`;
      const local = header.local && o.local !== false && (await sees(header.local)) ? header.local : null;
      const source: PartitionSource = {
        os,
        local,
        // (Only a run with a folder has partitions that are not in the store: the coordinator answers such notes.)
        ask: header.local ? (p) => askFor(nc, header.run, p, os) : null,
      };
      if (deliveries > maxAttempts) {
        const error = `task ${what} was delivered ${deliveries} times and never finished (its workers died or stalled).`;
        await failForGood(m, header, what, deliveries, os, error);
        return;
      }
      const t0 = performance.now();
      let readMs = 0;
      const env = taskEnv();
      log(`worker: ${what} started (delivery ${deliveries})`);
      const beat = setInterval(() => m.working(), heartbeatMs);
      try {
        let body: TaskMessage | null;
        if (header.stored) {
          body = await getMessage(os, taskObject(header.id));
        } else {
          const envelope = decodeTaskMessage(m.data);
          body = { meta: (envelope.meta.meta ?? {}) as TaskMessage['meta'], arrays: envelope.arrays };
        }
        if (body === null) throw new Error(`task ${what}'s body is missing from the run's object store.`);
        let reply: TaskMessage;
        if (header.partition !== undefined) {
          await preparation.ready();
          const run = o.partitionTasks[header.kind];
          if (!run) throw new Error(`this worker has no partition task '${header.kind}'.`);
          // A pair's partner is read beside its own partition (each once per run: the cache keeps them), and the
          // run's other stored partitions after them, one at a time, while this task computes (most pairs need most
          // partitions: a partition read in the background is not read while the GPU waits).
          const partnerId = body.meta.partner;
          if (typeof partnerId === 'number') cache.partition(epoch, source, partnerId).catch(() => undefined);
          const pair = header.kind === 'pair';
          if (pair) pairsInHand++;
          try {
            if (pair) cache.prefetch(epoch, source, () => pairsInHand > 0);
            const read = async (p: number): Promise<PartitionData> => {
              const t = performance.now();
              try {
                return await cache.partition(epoch, source, p);
              } finally {
                readMs += performance.now() - t;
              }
            };
            reply = await run(await read(header.partition), body, env, read);
          } finally {
            if (pair) pairsInHand--;
          }
        } else {
          const run = o.batchTasks[header.kind];
          if (!run) throw new Error(`this worker has no batch task '${header.kind}'.`);
          reply = await run(body, env, (name) => cache.object(epoch, os, name));
        }
        const bytes = await finish(header, os, { reply }, local);
        m.ack();
        notify(header, bytes);
        summary.done++;
        // Last field: the wait for its partitions (the object store's reads; 0 once cached), before it the whole time.
        const storedAt = performance.now();
        log(`worker: ${what} done in ${(storedAt - t0).toFixed(0)} ms, partitions read ${readMs.toFixed(0)}`);
        // Then the task's own step times (its reply's meta.timings: pair::union, forest::contract, …) and the rest
        // of the task's time (reading the body, storing the result): what two workers on one host slow (session 12).
        const steps = reply.meta.timings;
        if (steps !== null && typeof steps === 'object' && !Array.isArray(steps)) {
          const list = Object.entries(steps)
            .filter(([, ms]) => typeof ms === 'number')
            .map(([label, ms]) => `${label} ${(ms as number).toFixed(0)}`);
          if (list.length > 0) log(`worker: ${what} steps ${list.join(', ')} ms`);
        }
        // And its sizes (meta.counts: the forest's terminals, Steiner and open edges).
        const counts = reply.meta.counts;
        if (counts !== null && typeof counts === 'object' && !Array.isArray(counts)) {
          const list = Object.entries(counts).map(([label, c]) => `${label} ${String(c)}`);
          if (list.length > 0) log(`worker: ${what} counts ${list.join(', ')}`);
        }
      } catch (e) {
        // The connection closed for good: nothing can be returned, stored or told (the loop ends below its call).
        if (nc.isClosed()) return;
        // A run deleted while this task computed: its result had nowhere to go (the likely failure), so no retry.
        if (await droppedIfGone(m, header, what, true)) return;
        const message = messageOf(e);
        await retryOrFail(m, header, what, deliveries, os, 'failed', message, message);
      } finally {
        clearInterval(beat);
      }
    };

    /** The task in hand when the connection closed, if any. */
    let inHand: string | null = null;
    while (!o.signal?.aborted) {
      let m: JsMsg | null;
      try {
        m = await consumer.next({ expires: PULL_MS });
      } catch (e) {
        if (o.signal?.aborted || nc.isClosed()) break;
        log(`worker: waiting for the server (${messageOf(e)})`);
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (m === null) continue;
      let header: TaskHeader;
      try {
        header = headerOf(m);
      } catch (e) {
        // No worker can read it: dropped.
        log(`worker: dropped a task message: ${messageOf(e)}`);
        m.term();
        summary.dropped++;
        continue;
      }
      const what = `${header.kind}${header.partition !== undefined ? ` p${header.partition}` : ''} ${header.id}`;
      // Counted on from this worker's earlier deliveries of the same message where the server's count went back
      // (worker.deliveries.ts): told in one line.
      const told = m.info.deliveryCount;
      const deliveries = counts.count(`${m.info.streamSequence}/${header.run}/${header.id}`, told);
      if (deliveries !== told) {
        log(
          `worker: ${what} came back as delivery ${told} after this worker's delivery ${deliveries - 1}: counted as ${deliveries}`,
        );
      }
      const settled = (): number => summary.done + summary.failed + summary.retried + summary.dropped;
      const before = settled();
      inTask = true;
      try {
        await handle(m, header, what, deliveries);
      } catch (e) {
        // Not the task's own failure (that is handled in handle) but one before it: retried, or its run is gone.
        if (!nc.isClosed()) {
          await notStarted(m, header, what, deliveries, e).catch((err: unknown) => {
            if (!nc.isClosed()) throw err;
          });
        }
      } finally {
        inTask = false;
      }
      if (nc.isClosed()) {
        // Named only where it was not settled (acked done or failed, returned, dropped) before the close.
        if (settled() === before) inHand = what;
        break;
      }
    }
    // Closed for good (connectNats reconnects forever otherwise: the server refused this worker, or closed it): its
    // acks and naks go nowhere (nats.js drops them), a note would throw; the task in hand is redelivered.
    if (nc.isClosed()) {
      summary.closed = true;
      const why = await nc.closed();
      log(
        `worker: the connection to ${o.url} closed${why ? ` (${messageOf(why)})` : ''}` +
          `${inHand ? `, task ${inHand} in hand: it goes to another worker after its ack wait` : ''}; stopping`,
      );
    }
    preparation.stop();
    return summary;
  } finally {
    await peers?.stop();
    await nc.drain().catch(() => nc.close());
  }
}
