/**
 * The Borůvka rounds of the CPU backend (boruvka.cpu.ts) split across the worker threads of its k-NN phase
 * (neighbours.threads.ts), the calling thread working beside them:
 *
 *   main:     once per run, posts the shared state (rounds.cpu.ts, RoundShared) and each worker's own minima
 *   per round, for the phases settle (step 1) and then, where points are left, search (steps 3 and 4):
 *     main:    resets the chunk counter, posts the phase, claims chunks itself, folding into the run's minima
 *     workers: claim chunks (Atomics.add) until none are left, folding into their own minima; answer
 *     main:    merges every worker's minima into the run's in the canonical (key, min, max) order
 *   main:     steps 2 and 5 (label changes, the merge along the chosen edges) between and after the phases
 *
 * The merged minima are each component's exact best edge whoever ran which chunk (rounds.cpu.ts), so the tree is
 * one thread's, bit for bit. Chunks are claimed rather than assigned, so a thread slowed by another process takes
 * fewer; chunks are runs of Morton positions, so most components lie in one and a thread's radii stay tight.
 */
import type { Worker as NodeWorker } from 'node:worker_threads';
import { nextMessageId, postToWorker, postToWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { AbortError } from '../errors.js';
import { mergeCanonical, sortEdgesCanonical, type EdgeList } from './edges.cpu.js';
import {
  allocator,
  claimChunks,
  mergeBest,
  phaseMark,
  RoundWork,
  type LocalBest,
  type RoundShared,
} from './rounds.cpu.js';
import { THRESHOLDS } from '../host/thresholds.js';

/** Once per run: the shared state and this worker's own minima. */
export interface BoruvkaSetup {
  kind: 'boruvka-setup';
  id: number;
  shared: RoundShared;
  local: LocalBest;
  /** next[0]: the next unclaimed chunk of the current phase. */
  next: Int32Array;
}

/** One phase of one round. */
export interface BoruvkaPhase {
  kind: 'boruvka-phase';
  id: number;
  phase: 'settle' | 'search';
  round: number;
  chunks: number;
}

/** The run is over: the worker drops its references to the shared state. */
export interface BoruvkaEnd {
  kind: 'boruvka-end';
  id: number;
}

/** The canonical sort of `edges` into `into` (both shared), for one half of the run's edges. */
export interface SortEdges {
  kind: 'sort-edges';
  id: number;
  edges: EdgeList;
  into: EdgeList;
}

/** A worker's answer to a phase: the chunks it ran, or the error that stopped it. */
export interface BoruvkaReply extends WorkerReply {
  chunks: number;
}

/**
 * Morton positions per chunk: at most 8192 (a few ms of a settle phase, so claims are rare and the tail short),
 * and small inputs still split into ~8 chunks per thread.
 */
export function roundChunk(n: number, threads: number): number {
  return Math.max(256, Math.min(8192, Math.ceil(n / (8 * threads))));
}

/** Counts of the threaded rounds, for tests that must know the workers ran (cumulative per process). */
export const boruvkaThreadStats = { phases: 0, workerChunks: 0 };

/** The worker side of a run: its RoundWork, built from the setup. */
export function workerRound(setup: BoruvkaSetup): (phase: BoruvkaPhase) => number {
  const work = new RoundWork(setup.shared, setup.local);
  return (m) => claimChunks(work, m.phase, m.round, setup.next, m.chunks);
}

/** The calling thread's side of a run on `workers` (at least one). */
export class BoruvkaThreads {
  private readonly locals: LocalBest[];
  private readonly next = new Int32Array(new SharedArrayBuffer(4));
  private readonly chunks: number;
  private readonly work: RoundWork;
  /**
   * Why a worker can no longer answer (it threw or exited since the run began), or null. Important! A message
   * posted to a dead worker is dropped without an error, so a phase would wait for its answer for ever.
   */
  private broken: string | null = null;
  private readonly unwatch: (() => void)[] = [];

  constructor(
    private readonly workers: NodeWorker[],
    private readonly shared: RoundShared,
  ) {
    const n = shared.bvh.n;
    this.chunks = Math.ceil(n / shared.state.chunk);
    this.work = new RoundWork(shared, null);
    const alloc = allocator(true);
    this.locals = workers.map(() => ({ best: alloc.best(n), stamp: alloc.u32(n) }));
    for (const w of workers) {
      const onError = (e: Error) => (this.broken ??= `failed: ${e?.stack ?? e?.message ?? String(e)}`);
      const onExit = (code: number) => (this.broken ??= `exited (code ${code}).`);
      w.on('error', onError);
      w.on('exit', onExit);
      this.unwatch.push(() => {
        w.off('error', onError);
        w.off('exit', onExit);
      });
    }
    workers.forEach((w, i) => {
      const setup: BoruvkaSetup = {
        kind: 'boruvka-setup',
        id: nextMessageId(),
        shared,
        local: this.locals[i],
        next: this.next,
      };
      postToWorker(w, setup);
    });
  }

  /**
   * Runs `phase` of round `round` on the workers and this thread, then merges the workers' minima into the run's
   * for the components roots[0 … count). Rejects with AbortError when `signal` aborts, and with an Error quoting a
   * failed worker's message (the caller terminates the workers then).
   */
  async phase(
    phase: 'settle' | 'search',
    round: number,
    roots: Uint32Array,
    count: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const { next, chunks } = this;
    await this.checkAlive();
    Atomics.store(next, 0, 0);
    const message: BoruvkaPhase = { kind: 'boruvka-phase', id: nextMessageId(), phase, round, chunks };
    const replies = postToWorkers<BoruvkaReply>(
      this.workers,
      message,
      (what) => new Error(`emst::boruvka: a Borůvka worker thread ${what}`),
      signal,
      () => new AbortError(`emst was aborted during Borůvka round ${round} (emst::boruvka).`),
      () => Atomics.store(next, 0, chunks),
    );
    let ran: number;
    try {
      ran = claimChunks(this.work, phase, round, next, chunks);
    } catch (e) {
      Atomics.store(next, 0, chunks);
      replies.catch(() => undefined);
      throw e;
    }
    let total = ran;
    for (const reply of await replies) total += reply.chunks;
    if (total !== chunks)
      throw new Error(`emst::boruvka: the threads ran ${total} of ${chunks} chunks of a ${phase} phase.`);
    const mark = phaseMark(round, phase);
    for (const local of this.locals) mergeBest(this.shared.best, local, mark, roots, count);
    boruvkaThreadStats.phases++;
    boruvkaThreadStats.workerChunks += total - ran;
  }

  /**
   * The edges (in shared memory) in canonical order: one half sorted on a worker while this thread sorts the other,
   * then merged (emst::sort; less wall time than one thread: bench/RESULTS.md).
   */
  async sortEdges(edges: EdgeList, signal?: AbortSignal): Promise<EdgeList> {
    const m = edges.sources.length;
    if (m < THRESHOLDS.splitSortMinEdges) return sortEdgesCanonical(edges);
    await this.checkAlive();
    const half = m >>> 1;
    const part = (a: number, b: number): EdgeList => ({
      sources: edges.sources.subarray(a, b),
      targets: edges.targets.subarray(a, b),
      weights: edges.weights.subarray(a, b),
    });
    const alloc = allocator(true);
    const into: EdgeList = { sources: alloc.u32(m - half), targets: alloc.u32(m - half), weights: alloc.f32(m - half) };
    const message: SortEdges = { kind: 'sort-edges', id: nextMessageId(), edges: part(half, m), into };
    const reply = postToWorkers<BoruvkaReply>(
      this.workers.slice(0, 1),
      message,
      (what) => new Error(`emst::sort: a worker thread ${what}`),
      signal,
      () => new AbortError('emst was aborted during its edge sort (emst::sort).'),
    );
    let first: EdgeList;
    try {
      first = sortEdgesCanonical(part(0, half));
    } catch (e) {
      reply.catch(() => undefined);
      throw e;
    }
    await reply;
    return mergeCanonical(first, into);
  }

  /**
   * Rejects where a worker died since the run began. Its exit may precede this run's listeners (threadId is −1
   * then), or its error event may not have been dispatched yet: a few turns of the event loop let it arrive.
   */
  private async checkAlive(): Promise<void> {
    if (this.broken === null && this.workers.every((w) => w.threadId !== -1)) return;
    for (let turn = 0; turn < 20 && this.broken === null; turn++)
      await new Promise((resolve) => setTimeout(resolve, 1));
    throw new Error(`emst::boruvka: a Borůvka worker thread ${this.broken ?? 'exited.'}`);
  }

  /** Tells the workers the run is over (they drop the shared state); stops watching them. */
  end(): void {
    for (const unwatch of this.unwatch) unwatch();
    for (const w of this.workers) postToWorker(w, { kind: 'boruvka-end', id: nextMessageId() } satisfies BoruvkaEnd);
  }
}

/** The worker's side of a run (src/worker.ts): the current run's phase runner, or the error its setup failed with. */
let round: ((phase: BoruvkaPhase) => number) | null = null;
let setupError: string | null = null;

export const boruvkaJobs = {
  'boruvka-setup': (m: BoruvkaSetup): void => {
    round = null;
    setupError = null;
    try {
      round = workerRound(m);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      setupError = error.stack ?? error.message;
    }
  },
  'boruvka-phase': (m: BoruvkaPhase): BoruvkaReply => {
    if (round === null) throw new Error(setupError ?? 'a Borůvka phase came before its setup.');
    return { id: m.id, chunks: round(m) };
  },
  'sort-edges': (m: SortEdges): BoruvkaReply => {
    sortEdgesCanonical(m.edges, m.into);
    return { id: m.id, chunks: 0 };
  },
  'boruvka-end': (): void => {
    round = null;
    setupError = null;
  },
} satisfies JobTable;
