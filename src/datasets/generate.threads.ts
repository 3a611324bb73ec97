/**
 * The 'uniform' and 'normal' generators (generate.ts) on the host's worker threads, value for value the same points:
 * at 4·10^8 3D points one thread took 66 s on the H100's host (issue 19's bench, bench/RESULTS.md), most of a
 * device call. mulberry32 advances its state by a constant per draw, so a range of values starts anywhere with
 * Random.skip(draws before it):
 *
 *   uniform  value k is draw k: ranges start at their first value
 *   normal   values come in Box–Muller pairs from two draws each, and a pair redraws its first uniform while it is 0
 *            (about one draw in 2^32): ranges start at even values, first at draw = value (as if nothing was
 *            redrawn); each range answers the draws it made, and where a range's start was off (a redraw before
 *            it), the ranges from there are drawn again from the corrected starts, until every start is right
 *
 * The points lie in a SharedArrayBuffer. Other generators, one thread, or fewer than `minValues` values: generate().
 * On the H100's host, 10^8 normal 3D points on 16 threads: 1.8 s (584a53b; one thread ~16 s). With seed 1, draw
 * 598,168,994 is the one 0 of mulberry32 (state 0): 'normal' above 5.98·10^8 values (2·10^8 3D points) redraws it.
 */
import { InputError } from '../errors.js';
import { sharedBuffer } from '../host/buffers.js';
import {
  nextMessageId,
  passWithCaller,
  resolveThreads,
  splitOnWorkers,
  type JobTable,
  type WorkerReply,
} from '../host/threads.js';
import { MAX_DEFAULT_HOST_THREADS } from '../host/thresholds.js';
import { checkGenerateOptions, generate, type GenerateOptions, type GeneratorName } from './generate.js';
import { Random } from './random.js';

/** Values from which the threads are used by default (below, generate() takes under ~0.3 s). */
const MIN_VALUES = 1 << 22;

interface RangeJob {
  kind: 'generate-range';
  id: number;
  generator: 'uniform' | 'normal';
  seed: number;
  out: Float32Array;
  /** Values [start, end) of `out`, from draw `draw` on. */
  start: number;
  end: number;
  draw: number;
}

type RangeReply = WorkerReply & { draws: number };

/** One range of values (the worker's side, and the calling thread's). */
function generateRange(job: RangeJob): RangeReply {
  const { out, start, end } = job;
  const r = new Random(job.seed);
  r.skip(job.draw);
  const from = r.stateWord();
  if (job.generator === 'uniform') for (let i = start; i < end; i++) out[i] = r.next();
  else for (let i = start; i < end; i++) out[i] = r.normal();
  return { id: job.id, draws: r.drawsSince(from) };
}

/**
 * generate(name, opts) on `threads` host threads (default: the host's, at most 16, from 2^22 values); the same
 * values. The result views a SharedArrayBuffer where threads ran.
 */
export async function generateThreaded(
  name: GeneratorName,
  opts: GenerateOptions,
  options: { threads?: number; minValues?: number } = {},
): Promise<Float32Array> {
  if (name !== 'uniform' && name !== 'normal') return generate(name, opts);
  checkGenerateOptions(opts);
  const values = opts.n * opts.dim;
  const minValues = options.minValues ?? MIN_VALUES;
  if (options.threads !== undefined && (!Number.isInteger(options.threads) || options.threads < 1))
    throw new InputError(`Expected threads to be an integer >= 1, got ${options.threads}.`);
  const threads =
    values < minValues ? 1 : await resolveThreads(options.threads, Number.MAX_SAFE_INTEGER, MAX_DEFAULT_HOST_THREADS);
  if (threads < 2 || values < 2 * threads) return generate(name, opts);
  const out = new Float32Array(sharedBuffer(4 * values), 0, values);
  // Range j: values [cut[j], cut[j + 1]), cuts even (normal pairs never straddle two ranges).
  const cut = Array.from({ length: threads + 1 }, (_, j) =>
    j === threads ? values : Math.floor((values * j) / threads / 2) * 2,
  );
  const seed = opts.seed ?? 1;
  const draw = cut.slice(0, threads);
  const done = await splitOnWorkers(threads, true, 'generate', async (pass) => {
    // Ranges drawn from `first` on; their answers fix the next ranges' starts.
    for (let first = 0; first < threads; ) {
      const id = nextMessageId();
      const job = (part: number): RangeJob => {
        const j = first + part;
        return { kind: 'generate-range', id, generator: name, seed, out, start: cut[j], end: cut[j + 1], draw: draw[j] };
      };
      // Ranges below `first` are final; the pass takes one worker per range left (idle workers get empty ranges).
      const parts = threads - first;
      const replies = await passWithCaller(
        pass,
        (part) => (part < parts ? job(part) : { ...job(0), start: 0, end: 0, draw: 0 }),
        generateRange,
      );
      // The first range whose start was off gets the right one; those after it are guessed (no redraw) again.
      let next = threads;
      for (let j = first; j + 1 < threads; j++) {
        const want = draw[j] + replies[j - first].draws;
        if (draw[j + 1] !== want) {
          draw[j + 1] = want;
          next = j + 1;
          break;
        }
      }
      for (let j = next + 1; j < threads; j++) draw[j] = draw[j - 1] + (cut[j] - cut[j - 1]);
      first = next;
    }
    return out;
  });
  return done ?? generate(name, opts);
}

/** The worker's side (src/worker.ts). */
export const generateJobs = { 'generate-range': generateRange } satisfies JobTable;
