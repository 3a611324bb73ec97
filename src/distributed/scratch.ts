/**
 * Typed arrays a worker keeps between its partition tasks (issue 20, session 11: the 'pair' and 'forest' tasks'
 * per-point arrays, partition.tasks.ts). A fresh array takes its pages at 0.9–1.9 GB/s on the H100 hosts (a touched one
 * at 13–16: bench/RESULTS.md, issue 17), and a pair of 10^8 points needs ~40 bytes a point of them: taken anew every
 * task that was ~1–2 s of page faults a task.
 *
 * A task takes one Scratch for its run (withScratch) and gives it back at its end; tasks that run at once (the
 * in-process executor runs a batch side by side) get separate ones, and one idle Scratch is kept for the next task (a
 * `treeline worker` runs one task at a time: it always finds the last task's). No reply array may be a scratch view:
 * replies are encoded after the handler returns. Slots grow only: an idle Scratch holds the largest task's arrays, as
 * that task held them while it ran.
 */
import { touchOnWorkers } from '../host/buffers.js';
import { turn } from '../host/lanes.js';
import { resolveThreads } from '../host/threads.js';

type Typed = Uint32Array | Float32Array;

/**
 * A slot to take before the tasks come (Scratch.prepare: partition.tasks.ts prepareRun, prepareScratch): its name,
 * length in 4-byte words, and whether shared.
 */
export interface SlotSpec {
  name: string;
  length: number;
  shared: boolean;
}

export class Scratch {
  private readonly slots = new Map<string, ArrayBuffer | SharedArrayBuffer>();

  /**
   * `length` u32 under `name` (contents left from earlier tasks: the caller writes before it reads); `shared`: a view
   * of a SharedArrayBuffer (for host threads: tasks.threads.ts — never for the GPU's uploads).
   */
  u32(name: string, length: number, shared = false): Uint32Array {
    return this.view(name, length, Uint32Array, shared);
  }

  /** `length` f32 under `name` (as u32). */
  f32(name: string, length: number, shared = false): Float32Array {
    return this.view(name, length, Float32Array, shared);
  }

  /**
   * Takes every slot of `slots` at its length (where it is not already as large) and touches its pages: shared ones on
   * the host's threads, the others on this thread a piece at a time with a turn of the event loop between pieces.
   */
  async prepare(slots: SlotSpec[], threads?: number): Promise<void> {
    const shared: { buffer: SharedArrayBuffer; bytes: number }[] = [];
    const plain: Int32Array[] = [];
    for (const { name, length, shared: isShared } of slots) {
      const had = this.slots.get(name);
      const view = this.u32(name, length, isShared);
      if (had === view.buffer) continue; // already mapped by an earlier task or preparation
      if (isShared) shared.push({ buffer: view.buffer as SharedArrayBuffer, bytes: view.byteLength });
      else plain.push(new Int32Array(view.buffer, 0, view.length));
    }
    if (shared.length > 0) {
      const bytes = shared.reduce((sum, b) => sum + b.bytes, 0);
      await touchOnWorkers(shared, await resolveThreads(threads, bytes / 4, 16), 'prepareScratch');
    }
    for (const words of plain) {
      for (let i = 0; i < words.length; i += TOUCH_PIECE_WORDS) {
        const end = Math.min(words.length, i + TOUCH_PIECE_WORDS);
        for (let j = i; j < end; j += 1024) words[j] = 0;
        await turn();
      }
    }
  }

  private view<T extends Typed>(
    name: string,
    length: number,
    type: new (b: ArrayBuffer | SharedArrayBuffer, at: number, n: number) => T,
    shared: boolean,
  ) {
    const bytes = length * 4;
    let buffer = this.slots.get(name);
    if (buffer === undefined || buffer.byteLength < bytes || buffer instanceof SharedArrayBuffer !== shared) {
      this.slots.delete(name); // the old one may be collected before the new one is taken
      buffer = shared ? new SharedArrayBuffer(Math.max(bytes, 4)) : new ArrayBuffer(Math.max(bytes, 4));
      this.slots.set(name, buffer);
    }
    return new type(buffer, 0, length);
  }
}

let idle: Scratch | null = null;

/** Runs `use` with a Scratch of its own: the idle one if there is one, else a new one; keeps one for the next task. */
export async function withScratch<T>(use: (scratch: Scratch) => Promise<T>): Promise<T> {
  const scratch = idle ?? new Scratch();
  idle = null;
  try {
    return await use(scratch);
  } finally {
    idle = scratch;
  }
}

/** Words of a plain slot touched between two turns of the event loop (Scratch.prepare): 64 MiB. */
const TOUCH_PIECE_WORDS = 1 << 24;

/**
 * Takes the idle Scratch's slots `slots` before the tasks that use them come (what a worker told of a run's sizes
 * did before partition.tasks.ts prepareRun, which also warms the GPU; kept for tests), so that its first tasks do not
 * take their pages (session 15, H100 x2 at 2·10^8: each worker's first
 * pair ran 1.5–4 s longer than its later ones, its first forest 1–2 s, most of it fresh pages).
 */
export async function prepareScratch(slots: SlotSpec[], threads?: number): Promise<void> {
  await withScratch((scratch) => scratch.prepare(slots, threads));
}

/** Drops the idle Scratch (tests; a worker that wants its memory back). */
export function dropScratch(): void {
  idle = null;
}
