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
type Typed = Uint32Array | Float32Array;

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

/** Drops the idle Scratch (tests; a worker that wants its memory back). */
export function dropScratch(): void {
  idle = null;
}
