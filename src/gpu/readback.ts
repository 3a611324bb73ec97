/**
 * GPU → host read-backs through staging memory that lives as long as the context (issue 17 §3/§4), the mirror of
 * upload.ts.
 *
 * Why: a read-back through a fresh MAP_READ buffer as large as the data (treeline's method until issue 17, kept as
 * `'fresh'`) pays for new mappable memory every call — on a discrete GPU Dawn allocates it apart (above 4 MiB it is
 * not suballocated), the driver pins it, and the host's first touch of its pages faults them in — and then hands the
 * whole range over only once the whole copy is done. 10^7 edges × 12 B came back at ~1.2 GB/s on the H100 where
 * PCIe moves 20+ GB/s. What dawn.node does (src/dawn/node/binding/GPUBuffer.cpp): `getMappedRange` wraps the mapped
 * pointer in an external ArrayBuffer (no copy; MAP_READ memory is host-cached where the device offers it, Dawn's
 * MemoryTypeSelector) — but V8 counts it as external memory, and ranges of tens of MiB set off full garbage
 * collections (seen on lavapipe; 8 MiB ones did not) —, `unmap` detaches it, and `mapAsync` resolves from a
 * setImmediate loop that polls Dawn's events (tens of µs a round trip, not a thread hop).
 *
 * Here a pool of `slots` MAP_READ | COPY_DST buffers of up to `chunkBytes` each is made once per context; a read
 * goes through it chunk by chunk:
 *
 *   chunk k:  take a free slot (in call order; the first ones at once, in the caller's tick) → submit
 *             copyBufferToBuffer(source → slot) → mapAsync(READ) … then, in chunk order: hand the mapped range to
 *             the caller (who copies or transforms it) → unmap → the slot goes to the next chunk waiting for one
 *
 * so the GPU copies chunk k + 1 (and up to slots − 1 ahead) while the host copies chunk k out, and the staging pages
 * are faulted in once per context. Reads started together (Promise.all) share the slots first come, first served:
 * each finishes as fast as when run one after another, and the host copy of one overlaps the GPU copy of the next.
 *
 * Important! The copies of a read's later chunks are submitted while the read runs, not when it is called: the
 * source must not be written or destroyed by work submitted before the read's promise resolves. The first chunks
 * are submitted within the call when slots are free, so a read called right after a submit sees what it wrote.
 */
import type { GpuContext } from './context.js';
import { MapMode, Usage } from './usage.js';

/** How data comes back: `'ring'` (the context's staging pool, above) or `'fresh'` (one new MAP_READ buffer). */
export type ReadbackMethod = 'ring' | 'fresh';

export const READBACK_METHODS: readonly ReadbackMethod[] = ['ring', 'fresh'];

export interface ReadbackOptions {
  /**
   * Bytes per staging buffer and per chunk (a positive multiple of 16, default 8 MiB): chunk boundaries fall on
   * multiples of it, so records of 4, 8 or 16 bytes never straddle two chunks. Tests set it small.
   */
  chunkBytes?: number;
  /** Staging buffers in the pool (default 3: one being copied out on the host, two being filled by the GPU). */
  slots?: number;
}

/**
 * Receives one chunk of a read: `chunk` is the mapped range (its length rounded up to 4 bytes; detached when `use`
 * returns, so copy what you keep), `at` its byte offset in the read (a multiple of the chunk size, so of 16).
 * Chunks come in order; `'fresh'` hands the whole read over as one chunk.
 */
export type ReadbackChunk = (chunk: ArrayBuffer, at: number) => void;

/**
 * Default chunk, 8 MiB: as for uploads (upload.ts), a submission and a map per chunk (tens of µs) cost little beside
 * its copy (~0.4 ms at 20 GB/s) and its host copy, and 3 × 8 MiB is all the staging memory a context holds. The
 * bench suites readback-ring2 / readback-ring32 time other chunk sizes.
 */
export const DEFAULT_READBACK_CHUNK_BYTES = 8 << 20;
const DEFAULT_SLOTS = 3;
/** Smallest staging buffer made: reads of a few words (counts) share one slot of this size. */
const MIN_SLOT_BYTES = 256;

interface Slot {
  buffer: GPUBuffer | null;
}

interface Waiter {
  take: (slot: Slot) => void;
  fail: (e: Error) => void;
}

/** The context's pool of mappable staging buffers for read-backs, made as reads need them, destroyed with it. */
export class ReadbackRing {
  readonly chunkBytes: number;
  readonly slotCount: number;
  private readonly slots: Slot[] = [];
  private readonly free: Slot[] = [];
  private readonly waiting: Waiter[] = [];
  private destroyed = false;

  constructor(
    private readonly ctx: GpuContext,
    options: ReadbackOptions = {},
  ) {
    const chunk = options.chunkBytes ?? DEFAULT_READBACK_CHUNK_BYTES;
    const slots = options.slots ?? DEFAULT_SLOTS;
    if (!Number.isInteger(chunk) || chunk < 16 || chunk % 16 !== 0) {
      throw new RangeError(`Expected the read-back chunkBytes to be a positive multiple of 16, got ${chunk}.`);
    }
    if (!Number.isInteger(slots) || slots < 1) {
      throw new RangeError(`Expected the read-back slots to be a positive integer, got ${slots}.`);
    }
    this.chunkBytes = chunk;
    this.slotCount = slots;
  }

  /** Bytes of staging memory the pool holds: each slot as large as the largest chunk it carried (0 before any read). */
  get bytes(): number {
    let sum = 0;
    for (const s of this.slots) sum += s.buffer?.size ?? 0;
    return sum;
  }

  /**
   * Reads `size` bytes (a multiple of 4) of `src` from byte `offset` (a multiple of 4) and hands them to `use` chunk
   * by chunk, in order. Resolves when every chunk has been handed over.
   */
  async read(src: GPUBuffer, offset: number, size: number, use: ReadbackChunk, label: string): Promise<void> {
    if (this.destroyed) throw new Error(`${label}: the read-back staging pool was destroyed`);
    const chunk = this.chunkBytes;
    const count = Math.ceil(size / chunk);
    const errors: Promise<void>[] = [];
    // Chunk k's slot, mapped once the GPU has copied the chunk into it. Slots are asked for in chunk order; a chunk
    // whose slot is free is submitted now, the others when an earlier chunk hands its slot back (give()).
    const mapped: Promise<Slot>[] = [];
    let failed = false;
    for (let k = 0; k < count; k++) {
      const bytes = Math.min(chunk, size - k * chunk);
      mapped.push(
        new Promise<Slot>((resolve, reject) =>
          this.take({
            take: (slot) => {
              if (failed) {
                // The read failed before this chunk was submitted: nothing more to copy.
                this.give(slot);
                return reject(new Error(`${label}: read abandoned`));
              }
              try {
                const { map, errors: e } = this.copy(slot, src, offset + k * chunk, bytes, label);
                errors.push(e);
                map.then(
                  () => resolve(slot),
                  (err: Error) => {
                    this.give(slot);
                    reject(err);
                  },
                );
              } catch (err) {
                this.give(slot);
                reject(err as Error);
              }
            },
            fail: reject,
          }),
        ),
      );
    }
    // Handled now, thrown where awaited: a chunk may fail before the loop below reaches it.
    for (const p of mapped) p.catch(() => undefined);
    let k = 0;
    try {
      for (; k < count; k++) {
        let slot: Slot;
        try {
          slot = await mapped[k];
        } catch (e) {
          // A failed copy's map fails too: the copy's error (or the lost context) says what went wrong.
          await Promise.all(errors);
          this.ctx.check(label);
          throw e;
        }
        try {
          this.ctx.check(label);
          if (!slot.buffer) throw new Error(`${label}: the read-back staging pool was destroyed`);
          use(slot.buffer.getMappedRange(0, Math.min(chunk, size - k * chunk)), k * chunk);
        } finally {
          slot.buffer?.unmap();
          this.give(slot);
        }
      }
      await Promise.all(errors);
    } finally {
      // After a failure: the chunks still under way hand their slots back as they arrive; the others never start.
      failed = k < count;
      for (k++; k < count; k++) {
        mapped[k].then(
          (slot) => {
            slot.buffer?.unmap();
            this.give(slot);
          },
          () => undefined,
        );
      }
    }
  }

  /** Submits the copy of `bytes` bytes at `offset` of `src` into `slot` (grown if too small) and maps the slot. */
  private copy(slot: Slot, src: GPUBuffer, offset: number, bytes: number, label: string) {
    if (!slot.buffer || slot.buffer.size < bytes) {
      slot.buffer?.destroy();
      slot.buffer = null;
      slot.buffer = this.ctx.device.createBuffer({
        label: `readback::staging${this.slots.indexOf(slot)}`,
        size: Math.min(this.chunkBytes, Math.max(MIN_SLOT_BYTES, 2 ** Math.ceil(Math.log2(bytes)))),
        usage: Usage.MAP_READ | Usage.COPY_DST,
      });
    }
    const buffer = slot.buffer;
    const errors = this.ctx.enqueue(label, (rec) => rec.copy(src, offset, buffer, 0, bytes));
    errors.catch(() => undefined); // handled now, thrown where read() awaits it
    return { map: buffer.mapAsync(MapMode.READ, 0, bytes), errors };
  }

  /** Gives a free slot to `w` now, or queues `w` until a read hands one back. */
  private take(w: Waiter): void {
    if (this.destroyed) return w.fail(new Error('readback::staging: the read-back staging pool was destroyed'));
    let slot = this.free.pop();
    if (!slot && this.slots.length < this.slotCount) {
      slot = { buffer: null };
      this.slots.push(slot);
    }
    if (slot) w.take(slot);
    else this.waiting.push(w);
  }

  /** A slot is free again: to the longest-waiting chunk, or back to the pool. */
  private give(slot: Slot): void {
    if (this.destroyed) return;
    const w = this.waiting.shift();
    if (w) w.take(slot);
    else this.free.push(slot);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const s of this.slots) {
      s.buffer?.destroy();
      s.buffer = null;
    }
    this.slots.length = 0;
    this.free.length = 0;
    const e = new Error('readback::staging: the read-back staging pool was destroyed');
    for (const w of this.waiting.splice(0)) w.fail(e);
  }
}

/**
 * Today's method before issue 17, kept for the bench suite `readback-fresh`: a new MAP_READ buffer as large as the
 * read, one copy, one map, the whole range handed to `use` as one chunk.
 */
export async function readFresh(
  ctx: GpuContext,
  src: GPUBuffer,
  offset: number,
  size: number,
  use: ReadbackChunk,
  label: string,
): Promise<void> {
  const staging = ctx.device.createBuffer({ label, size, usage: Usage.MAP_READ | Usage.COPY_DST });
  try {
    await ctx.scoped(label, () => {
      const enc = ctx.device.createCommandEncoder({ label });
      enc.copyBufferToBuffer(src, offset, staging, 0, size);
      ctx.device.queue.submit([enc.finish()]);
    });
    await staging.mapAsync(MapMode.READ);
    ctx.check(label);
    use(staging.getMappedRange(), 0);
  } finally {
    staging.destroy();
  }
}
