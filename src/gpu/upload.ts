/**
 * Host → GPU uploads through staging memory that lives as long as the context (issue 17 §4).
 *
 * Why: every one-shot method (`mappedAtCreation` on the destination, one `queue.writeBuffer`) has Dawn allocate a
 * fresh staging buffer as large as the data, and the host's first touch of fresh pages (page faults, the kernel
 * zeroing them) made 10^7 × 3 f32 (120 MB) take 111–141 ms on the H100, ~1 GB/s where PCIe moves 20+ GB/s
 * (DESIGN.md facts). Here a ring of a few mappable MAP_WRITE | COPY_SRC buffers of `chunkBytes` each is made once
 * per context; an upload writes its data through them chunk by chunk:
 *
 *   chunk k:  wait until slot k mod slots is mapped again → copy the chunk into its mapped range (host) → unmap →
 *             submit copyBufferToBuffer(slot → destination) → mapAsync(WRITE) the slot (resolves once the GPU
 *             has copied it)
 *
 * so the host fills chunk k + 1 while the GPU copies chunk k, and only slots × chunkBytes of staging pages are ever
 * faulted in, once per context. Uploads through one ring are serialised (each waits for the previous one's last
 * chunk to be written, not copied); later GPU work is ordered after the copies by the queue.
 *
 * The other methods stay selectable (`UploadMethod`) so that the bench suite `upload` (src/bench/upload.ts) times
 * them all on one device.
 */
import type { GpuContext } from './context.js';
import { unshared } from './buffers.js';
import { MapMode, Usage } from './usage.js';

/**
 * How data reaches a GPU buffer: `'staged'` (the context's staging ring, above), `'write'` (one
 * `queue.writeBuffer`), `'write-chunked'` (`queue.writeBuffer` in chunks of `chunkBytes`: Dawn's own staging ring
 * holds chunks up to 4 MiB), `'mapped'` (the destination created `mappedAtCreation`, treeline's method until issue 17).
 */
export type UploadMethod = 'staged' | 'write' | 'write-chunked' | 'mapped';

export const UPLOAD_METHODS: readonly UploadMethod[] = ['staged', 'write', 'write-chunked', 'mapped'];

export interface StagingOptions {
  /** Bytes per staging buffer (a multiple of 8; default 8 MiB). Tests set it small to exercise several chunks. */
  chunkBytes?: number;
  /** Staging buffers in the ring (default 3: one being filled, two being copied). */
  slots?: number;
}

/**
 * Default chunk, 8 MiB: a submission and a map per chunk (tens of µs: dawn.node resolves maps from setImmediate)
 * cost little beside its copy (~0.3 ms at PCIe 4 speed), while the ring's 3 × 8 MiB is all the fresh staging
 * memory a process's first upload pays for. The bench suites upload-ring2/-ring32 time other chunk sizes.
 */
export const DEFAULT_CHUNK_BYTES = 8 << 20;
const DEFAULT_SLOTS = 3;
/** Uploads up to this size (and up to one chunk) go through `queue.writeBuffer` instead of the ring. */
const SMALL_BYTES = 256 << 10;

interface Slot {
  buffer: GPUBuffer;
  /** Resolves when the buffer is mapped for writing (at creation; then once the GPU has copied its last chunk). */
  mapped: Promise<void>;
}

/** The context's ring of mappable staging buffers, created on the first staged upload, destroyed with the context. */
export class StagingRing {
  readonly chunkBytes: number;
  readonly slotCount: number;
  private slots: Slot[] | null = null;
  /** The previous upload's host side: uploads through the ring are serialised. */
  private tail: Promise<void> = Promise.resolve();
  private destroyed = false;

  constructor(
    private readonly ctx: GpuContext,
    options: StagingOptions = {},
  ) {
    const chunk = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    const slots = options.slots ?? DEFAULT_SLOTS;
    if (!Number.isInteger(chunk) || chunk < 8 || chunk % 8 !== 0) {
      throw new RangeError(`Expected the staging chunkBytes to be a positive multiple of 8, got ${chunk}.`);
    }
    if (!Number.isInteger(slots) || slots < 1) {
      throw new RangeError(`Expected the staging slots to be a positive integer, got ${slots}.`);
    }
    this.chunkBytes = chunk;
    this.slotCount = slots;
  }

  /** Bytes of staging memory the ring holds (0 until the first staged upload larger than SMALL_BYTES). */
  get bytes(): number {
    return this.slots === null ? 0 : this.slots.length * this.slots[0].buffer.size;
  }

  /**
   * Writes `data` into `dst` at byte `dstOffset` (a multiple of 4), zero-padding its last word; resolves when every
   * chunk has been submitted (the GPU copies may still be running: later submissions are ordered after them).
   */
  write(dst: GPUBuffer, dstOffset: number, data: ArrayBufferView): Promise<void> {
    const run = this.tail.then(() => this.writeNow(dst, dstOffset, data, false));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Like `write`, but writes float32 `data.length` words: each float64 rounded to float32 (as `new Float32Array(data)`
   * does) while it is copied into the staging chunk, so no float32 copy of the whole array is made on the host (emst()'s
   * Float64Array input, issue 17 §4).
   */
  writeRounded(dst: GPUBuffer, dstOffset: number, data: Float64Array): Promise<void> {
    const run = this.tail.then(() => this.writeNow(dst, dstOffset, data, true));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async writeNow(dst: GPUBuffer, dstOffset: number, data: ArrayBufferView, round: boolean): Promise<void> {
    const label = `upload::${dst.label}`;
    // Views per chunk, not one over the whole: typed arrays end at 2^32 elements (4·10^8 3D points are 4.8 GB).
    const total = round ? 4 * (data as Float64Array).length : data.byteLength;
    if (total <= Math.min(SMALL_BYTES, this.chunkBytes)) {
      // Small data: Dawn's own staging ring (up to 4 MiB a write) costs no round trip.
      const small = round ? new Float32Array(data as Float64Array) : data;
      await this.ctx.scoped(label, () => writeChunked(this.ctx.device.queue, dst, dstOffset, small, total));
      return;
    }
    const slots = this.ring(total);
    const chunk = slots[0].buffer.size;
    const errors: Promise<void>[] = [];
    for (let at = 0, k = 0; at < total; at += chunk, k++) {
      const slot = slots[k % slots.length];
      await slot.mapped;
      this.ctx.check(label);
      const size = Math.min(chunk, total - at);
      const size4 = Math.ceil(size / 4) * 4;
      if (!round) {
        const mapped = new Uint8Array(slot.buffer.getMappedRange(0, size4));
        mapped.set(new Uint8Array(data.buffer, data.byteOffset + at, size));
        mapped.fill(0, size); // the last word's padding: a slot holds the bytes of earlier chunks
      } else {
        // Chunks are multiples of 8 bytes, so each starts at a whole float: at / 4 is its first value.
        const mapped = new Float32Array(slot.buffer.getMappedRange(0, size4));
        mapped.set((data as Float64Array).subarray(at / 4, (at + size) / 4));
      }
      slot.buffer.unmap();
      errors.push(this.ctx.enqueue(label, (rec) => rec.copy(slot.buffer, 0, dst, dstOffset + at, size4)));
      slot.mapped = this.map(slot.buffer);
    }
    await Promise.all(errors);
  }

  /**
   * The slots: each min(chunkBytes, what `bytes` needs) large, as many as its chunks (up to slotCount), so that a
   * context that only uploads small arrays holds little staging memory. An upload that needs larger or more slots
   * than there are (up to those bounds) makes them anew.
   */
  private ring(bytes: number): Slot[] {
    if (this.destroyed) throw new Error('upload::staging: the staging ring was destroyed');
    let size = Math.min(this.chunkBytes, Math.ceil(bytes / 8) * 8);
    let count = Math.min(this.slotCount, Math.ceil(bytes / size));
    if (this.slots) {
      if (this.slots[0].buffer.size >= size && this.slots.length >= count) return this.slots;
      size = Math.max(size, this.slots[0].buffer.size);
      count = Math.max(count, this.slots.length);
      this.release();
    }
    this.slots = Array.from({ length: count }, (_, i) => ({
      buffer: this.ctx.device.createBuffer({
        label: `upload::staging${i}`,
        size,
        usage: Usage.MAP_WRITE | Usage.COPY_SRC,
        mappedAtCreation: true,
      }),
      mapped: Promise.resolve(),
    }));
    return this.slots;
  }

  private release(): void {
    for (const s of this.slots ?? []) s.buffer.destroy();
    this.slots = null;
  }

  /** Maps a slot again; a failure (the context destroyed meanwhile) surfaces at the next write through check(). */
  private map(buffer: GPUBuffer): Promise<void> {
    return buffer.mapAsync(MapMode.WRITE).catch(() => undefined);
  }

  destroy(): void {
    this.destroyed = true;
    this.release();
  }
}

/**
 * Writes `data` into `dst` (at `dstOffset`, a multiple of 4; `dst` must have COPY_DST) by `method` ('mapped' is
 * for new buffers only: see GpuContext.uploadAsync). `chunkBytes` sizes the 'write-chunked' chunks.
 */
export function writeChunked(
  queue: GPUQueue,
  dst: GPUBuffer,
  dstOffset: number,
  data: ArrayBufferView,
  chunkBytes: number,
): void {
  // Views per chunk, not one over the whole: typed arrays end at 2^32 elements.
  const length = data.byteLength;
  const whole = length - (length % 4);
  for (let at = 0; at < whole; at += chunkBytes) {
    const size = Math.min(chunkBytes, whole - at);
    queue.writeBuffer(dst, dstOffset + at, unshared(new Uint8Array(data.buffer, data.byteOffset + at, size)));
  }
  if (whole < length) {
    // writeBuffer takes multiples of 4 bytes: the last word, zero-padded.
    const tail = new Uint8Array(4);
    tail.set(new Uint8Array(data.buffer, data.byteOffset + whole, length - whole));
    queue.writeBuffer(dst, dstOffset + whole, tail);
  }
}
