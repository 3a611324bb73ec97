/**
 * A `treeline worker`'s default host threads a task: its share of its host's cores among the workers on that host
 * (issue 20). Sessions 16–17, when a forest's contraction and a pair's union were single-threaded random walks, two
 * GPU workers on one 32-core host ran their tasks 16–18 % slower in sum than one alone with 16 host threads each,
 * 7.5–23 % with 8, 3 % with 12 (a quarter of the cores left to those steps: 8a979a2). Since session 18 both run on
 * the host's threads, and 16 each beat 12 each in both machine starts that compared them (2·10^8 points, two workers
 * of an H200 x2 host: 44.6 against 50.7 s, 34.6 against 41.5 s; bench/RESULTS.md). Without `--threads`, each task
 * takes
 *
 *   taskHostThreads(cores, workers) = max(1, min(TASK_THREADS_MAX, ⌊cores / workers⌋))
 *
 * — the cores shared out evenly (a lone worker: min(TASK_THREADS_MAX, cores), as always). Only two workers on a
 * 32-core host were measured: three or more, or the command on the same host (its merge, the server, hashing), are
 * not, and nothing is held back for them now,
 * with `workers` counted at the task's start, itself included. The workers find each other through the NATS server
 * they already use, on core NATS (nothing stored, nothing to clean up):
 *
 *   subject  treeline.workers   {host, id}: at a worker's start with `hello` (the same host's workers answer with
 *                               their own at once, so a new worker knows them before its first task), every
 *                               `periodMs` (PRESENCE_MS), and at its stop with `bye` (the others drop it at once)
 *   count    itself + the same host's workers heard from within the last EXPIRY_BEATS periods: a worker killed
 *            (SIGKILL) says no bye, and drops out when its beats stop
 *
 * Workers with `--threads` take part too (they use the host's cores as much as any), but their own count is theirs.
 * Beats come from the event loop, as the tasks' `working` heartbeats do (worker.ts: every sixth of the ack wait,
 * 5 s by default): a task's passes yield to it far more often than EXPIRY_BEATS × PRESENCE_MS (a forest's contraction
 * too, since session 17: contractForestAsync — its one loop of 15–17 s had the other worker count this one gone). A
 * server that denies the subject (accounts, permissions) leaves every worker counting itself alone: the default of
 * before.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { loadNodeThreads } from '../host/threads.js';
import { TASK_THREADS_MAX } from './partition.tasks.js';

export const PRESENCE_SUBJECT = 'treeline.workers';
/** A worker's presence beat period in ms. */
export const PRESENCE_MS = 5000;
/** Periods without a beat after which a worker is counted gone. */
export const EXPIRY_BEATS = 3;

/** The host threads of each task of a worker without `--threads`: its share of `cores` among `workers` (≥ 1). */
export function taskHostThreads(cores: number, workers: number): number {
  return Math.max(1, Math.min(TASK_THREADS_MAX, Math.floor(cores / Math.max(1, workers))));
}

/** The log line for a worker's choice (worker.ts tells it whenever it changes). */
export function hostThreadsLine(cores: number, workers: number): string {
  const threads = taskHostThreads(cores, workers);
  const share = workers <= 1 ? cores : Math.floor(cores / workers);
  const capped = share > TASK_THREADS_MAX ? `, at most ${TASK_THREADS_MAX}` : '';
  const how = workers <= 1 ? `cores ${cores}` : `cores ${cores} / ${workers}`;
  return (
    `worker: ${workers} worker${workers === 1 ? '' : 's'} on this host: ${threads} host thread${threads === 1 ? '' : 's'} ` +
    `a task (${how}${capped})`
  );
}

/**
 * This host's id: its hostname and the kernel's boot id (/proc/sys/kernel/random/boot_id, Linux).
 *
 * Why both. The boot id is drawn at random at each boot and is not namespaced: every process and container on one
 * machine reads the same one, two machines never do — so it tells apart machines that share a hostname (images that
 * all call themselves `localhost`, containers started with the same `--hostname` on several machines), which the
 * hostname alone would count as one host and starve of threads. The hostname (a container has its own by default, its
 * UTS namespace) keeps containers on one machine apart unless they share the host's: a container is often given its
 * own cores (a cpuset, which os.availableParallelism() sees), and dividing those again by the machine's other workers
 * would starve it; containers that do share one cpuset and hostname (`--uts=host`, `--network=host`) count together.
 * So a miss counts too few workers (the default of before, 16 threads), never too many. Not the same-host folder's
 * token (nats.local.ts): that proves a shared /dev/shm, a stronger and different thing (a container has its own by
 * default; two processes of different users see it only by its mode), and would need a file written and kept.
 * Without a boot id (macOS, Windows) the hostname alone.
 */
export async function hostId(): Promise<string> {
  const [os, fs] = await Promise.all(['node:os', 'node:fs'].map((name) => import(/* @vite-ignore */ name)));
  let boot = '';
  try {
    boot = String(await fs.promises.readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
  } catch {
    // Not Linux: the hostname alone.
  }
  return `${os.hostname()}/${boot}`;
}

/** The available cores (os.availableParallelism(), as the host's threads count them; 1 without Node's threads). */
export async function hostCores(): Promise<number> {
  return (await loadNodeThreads())?.parallelism ?? 1;
}

interface Beat {
  host: string;
  id: string;
  hello?: boolean;
  bye?: boolean;
}

/** The workers on this host that this worker has heard from (see the header), itself included in the count. */
export class HostPeers {
  /** This worker's id (random, fresh each start). */
  readonly id = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
  /** Each same-host worker's id and when it was last heard from (performance.now()). */
  private readonly heard = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval>;
  private sub: Subscription | null = null;
  private stopped = false;

  private constructor(
    private readonly nc: NatsConnection,
    readonly host: string,
    readonly periodMs: number,
  ) {
    this.timer = setInterval(() => this.publish({}), periodMs);
    (this.timer as { unref?: () => void }).unref?.(); // never what keeps a process alive
  }

  /** Starts listening and beating on `nc`; `host` defaults to hostId(), `periodMs` to PRESENCE_MS. */
  static async start(nc: NatsConnection, options: { host?: string; periodMs?: number } = {}): Promise<HostPeers> {
    const peers = new HostPeers(nc, options.host ?? (await hostId()), options.periodMs ?? PRESENCE_MS);
    peers.sub = nc.subscribe(PRESENCE_SUBJECT, {
      callback: (err, msg) => {
        if (!err) peers.hear(msg.data);
      },
    });
    // The subscription reaches the server before the hello, so that every answer to it is heard.
    await nc.flush().catch(() => undefined);
    peers.publish({ hello: true });
    return peers;
  }

  /** This worker and the same host's workers heard from within the last EXPIRY_BEATS periods. */
  count(): number {
    const since = performance.now() - EXPIRY_BEATS * this.periodMs;
    for (const [id, at] of this.heard) if (at < since) this.heard.delete(id);
    return 1 + this.heard.size;
  }

  /** Says bye (the others drop this worker at once) and stops beating and listening. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.sub?.unsubscribe();
    this.publish({ bye: true }, true);
    await this.nc.flush().catch(() => undefined);
  }

  private hear(data: Uint8Array): void {
    let beat: Partial<Beat>;
    try {
      beat = JSON.parse(new TextDecoder().decode(data));
    } catch {
      return;
    }
    if (beat === null || typeof beat !== 'object' || beat.host !== this.host || typeof beat.id !== 'string') return;
    if (beat.id === this.id) return;
    if (beat.bye === true) {
      this.heard.delete(beat.id);
      return;
    }
    this.heard.set(beat.id, performance.now());
    if (beat.hello === true) this.publish({});
  }

  private publish(extra: { hello?: boolean; bye?: boolean }, evenStopped = false): void {
    if (this.stopped && !evenStopped) return;
    const beat: Beat = { host: this.host, id: this.id, ...extra };
    try {
      this.nc.publish(PRESENCE_SUBJECT, JSON.stringify(beat));
    } catch {
      // A closed connection: the worker is ending anyway.
    }
  }
}
