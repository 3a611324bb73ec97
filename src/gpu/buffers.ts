/**
 * Buffer creation with ownership tracking: every buffer made through the context is labelled, counted while it
 * lives, and contributes to a peak-memory figure (the benchmarks' "peak of live GPU buffers"). A buffer's
 * `destroy()` untracks it; `destroyAll()` is the context's last act.
 *
 * Reuse across calls (issue 17): creating GPU buffers costs the calling thread ~18 ms per hdbscan() at 10^6 points
 * and ~100 ms at 10^7 on the H100 (Dawn's createBuffer: the driver's allocations; CPU profiles, bench/RESULTS.md),
 * and a context that runs one call after another asks for the same sizes again. So a destroyed storage buffer is
 * kept in a pool instead, and a later request of the same size and usage takes it back, cleared to zeros first (a
 * queue write of zeros or a clearBuffer, submitted at once: queue order puts it after the work of its last owner and
 * before any of its new one's), so it reads as a new buffer does. The pool is bounded: a request it cannot serve
 * first frees pooled buffers, oldest first, until pooled + live + the request fit under the most ever live at once
 * plus POOL_EXTRA_BYTES (at most that much again): a context never holds more than its largest call needed plus
 * 512 MiB. Pooled bytes are not in `liveBytes`;
 * `trim()` frees them; buffers with map usages are never pooled.
 */
import { Usage } from './usage.js';

export interface MemoryStats {
  /** Bytes held by live buffers now. */
  liveBytes: number;
  /** Highest `liveBytes` seen since the last `resetPeak()`. */
  peakBytes: number;
  /** Number of live buffers. */
  liveBuffers: number;
  /** Labels of live buffers (to find leaks). */
  liveLabels: string[];
  /** Bytes of destroyed buffers kept for reuse (not in `liveBytes`; `GpuContext.trim()` frees them). */
  pooledBytes: number;
}

/**
 * Buffers from this size up are pooled when destroyed: every size — a small buffer's creation costs the calling
 * thread about what a large one's does (the recorders' uniform blocks and the counters are most of the calls).
 */
export const POOL_MIN_BYTES = 4;

/**
 * What the pool may hold beyond the most bytes ever live at once (at most that much again): a call's phases (the MST,
 * then the clustering) free and allocate different sizes, and under the high-water mark alone their buffers evicted
 * each other on every call (lavapipe trace: ~53 of ~60 buffers created anew per hdbscan() call). 512 MiB covers both
 * phases up to ~2·10^6 points; beyond, the pool keeps what fits. `trim()` frees it all.
 */
export const POOL_EXTRA_BYTES = 512 * 2 ** 20;

/** Reused buffers up to this size are cleared by a queue write of zeros; larger ones by a clearBuffer command. */
const WRITE_CLEAR_BYTES = 1 << 16;
const ZEROS = new Uint8Array(WRITE_CLEAR_BYTES);

/** Storage buffers can be read, written, copied from and to, and used for indirect dispatch. */
const STORAGE_USAGE = Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST;
/** upload(): buffers up to this size are written mapped at creation, larger ones by the queue in pieces. */
const MAPPED_UPLOAD_MAX_BYTES = 1 << 30;
const WRITE_PIECE_BYTES = 64 << 20;

export class BufferTracker {
  private readonly live = new Map<GPUBuffer, number>();
  private liveBytes = 0;
  private peakBytes = 0;
  /** The most bytes ever live at once (resetPeak leaves it): the pool's bound. */
  private highWater = 0;
  /** Destroyed buffers kept for reuse, by `${size}:${usage}`, and all of them oldest first. */
  private readonly pool = new Map<string, GPUBuffer[]>();
  private readonly pooled: { buffer: GPUBuffer; key: string; size: number }[] = [];
  private pooledBytes = 0;
  /** Buffers taken from the pool (cumulative), for tests and benchmarks. */
  reused = 0;

  /** `reuse`: keep destroyed buffers for later requests of their size (the context's `bufferPool` option). */
  constructor(
    private readonly device: GPUDevice,
    private readonly reuse = true,
  ) {}

  /**
   * A labelled buffer of at least `byteLength` bytes (rounded up to 4, at least 4), storage usage plus `usage`, all
   * zeros — unless `cleared` is false (the caller writes every byte before any use: a reused buffer is then not
   * cleared first).
   */
  create(label: string, byteLength: number, usage = 0, cleared = true): GPUBuffer {
    const size = Math.max(4, Math.ceil(byteLength / 4) * 4);
    const full = STORAGE_USAGE | usage;
    const key = `${size}:${full}`;
    const again = this.takePooled(key, label);
    if (again) {
      this.unpool(again);
      again.label = label;
      if (cleared && size <= WRITE_CLEAR_BYTES) {
        this.device.queue.writeBuffer(again, 0, ZEROS, 0, size);
      } else if (cleared) {
        const encoder = this.device.createCommandEncoder({ label: `${label} (cleared for reuse)` });
        encoder.clearBuffer(again);
        this.device.queue.submit([encoder.finish()]);
      }
      this.reused++;
      this.track(again, size, key, true);
      return again;
    }
    if (this.pooledBytes > 0) this.evict(size);
    const buf = this.device.createBuffer({ label, size, usage: full });
    this.track(buf, size, key, false);
    return buf;
  }

  /**
   * A pooled buffer of this size and usage, preferring one last made under the same label: a call that repeats the
   * last one then gets every buffer back in its old role, so it also finds its bind groups made (recorder.ts).
   */
  private takePooled(key: string, label: string): GPUBuffer | undefined {
    const list = this.pool.get(key);
    if (!list || list.length === 0) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i].label === label) return list.splice(i, 1)[0];
    }
    return list.pop();
  }

  /** Frees every pooled buffer (GpuContext.trim). */
  trim(): void {
    this.evict(Number.POSITIVE_INFINITY);
  }

  /** Frees pooled buffers, oldest first, until pooled + live + `need` bytes fit under the high-water mark. */
  private evict(need: number): void {
    const bound = this.highWater + Math.min(this.highWater, POOL_EXTRA_BYTES);
    while (this.pooled.length > 0 && this.pooledBytes + this.liveBytes + need > bound) {
      const { buffer, key } = this.pooled[0];
      const list = this.pool.get(key)!;
      list.splice(list.indexOf(buffer), 1);
      this.unpool(buffer);
      buffer.destroy();
    }
  }

  private unpool(buffer: GPUBuffer): void {
    const i = this.pooled.findIndex((p) => p.buffer === buffer);
    this.pooledBytes -= this.pooled[i].size;
    this.pooled.splice(i, 1);
  }

  /** A labelled buffer holding a copy of `data` (zero-padded to a multiple of 4 bytes). */
  upload(label: string, data: ArrayBufferView, usage = 0): GPUBuffer {
    const size = Math.max(4, Math.ceil(data.byteLength / 4) * 4);
    const key = `${size}:${STORAGE_USAGE | usage}`;
    const again = this.takePooled(key, label);
    if (again) {
      // A pooled buffer of this size, written by the queue (every byte: the data, then zeros to the next word).
      this.unpool(again);
      again.label = label;
      this.writePieces(again, size, data);
      this.reused++;
      this.track(again, size, key, true);
      return again;
    }
    if (this.pooledBytes > 0) this.evict(size);
    if (size > MAPPED_UPLOAD_MAX_BYTES) {
      // Above 1 GiB neither the mapped range nor one byte view of the data can always be made in JavaScript
      // (typed arrays end at 2^32 elements: 4·10^8 3D points are 4.8 GB), so the queue writes it in pieces.
      const buf = this.device.createBuffer({ label, size, usage: STORAGE_USAGE | usage });
      this.writePieces(buf, size, data);
      this.track(buf, size, key, false);
      return buf;
    }
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const buf = this.device.createBuffer({ label, size, usage: STORAGE_USAGE | usage, mappedAtCreation: true });
    new Uint8Array(buf.getMappedRange()).set(bytes);
    buf.unmap();
    this.track(buf, size, `${size}:${STORAGE_USAGE | usage}`, false);
    return buf;
  }

  /** Writes `data` into `buf` (`size` bytes: the data, then zeros to the next word) by the queue, 64 MiB at a time. */
  private writePieces(buf: GPUBuffer, size: number, data: ArrayBufferView): void {
    for (let at = 0; at < size; at += WRITE_PIECE_BYTES) {
      const end = Math.min(size, at + WRITE_PIECE_BYTES);
      const have = Math.max(0, Math.min(end, data.byteLength) - at);
      const piece = unshared(new Uint8Array(data.buffer, data.byteOffset + at, have));
      if (have === end - at) this.device.queue.writeBuffer(buf, at, piece);
      else {
        const last = new Uint8Array(end - at);
        last.set(piece);
        this.device.queue.writeBuffer(buf, at, last);
      }
    }
  }

  private track(buf: GPUBuffer, size: number, key: string, again: boolean): void {
    this.live.set(buf, size);
    this.liveBytes += size;
    if (this.liveBytes > this.peakBytes) this.peakBytes = this.liveBytes;
    if (this.liveBytes > this.highWater) this.highWater = this.liveBytes;
    if (again) return; // its destroy() already untracks (below)
    const destroy = buf.destroy.bind(buf);
    const poolable = this.reuse && size >= POOL_MIN_BYTES;
    // Untrack on destroy: every createBuffer has its destroy in the module that made it (CONVENTIONS.md 7). A second
    // destroy() of a buffer that is no longer live does nothing to the pool (it was pooled or freed already).
    Object.defineProperty(buf, 'destroy', {
      configurable: true,
      value: () => {
        const s = this.live.get(buf);
        if (s === undefined) {
          if (!this.pooled.some((p) => p.buffer === buf)) destroy();
          return;
        }
        this.live.delete(buf);
        this.liveBytes -= s;
        if (!poolable) return destroy();
        const list = this.pool.get(key) ?? [];
        list.push(buf);
        this.pool.set(key, list);
        this.pooled.push({ buffer: buf, key, size });
        this.pooledBytes += size;
      },
    });
  }

  stats(): MemoryStats {
    return {
      liveBytes: this.liveBytes,
      peakBytes: this.peakBytes,
      liveBuffers: this.live.size,
      liveLabels: [...this.live.keys()].map((b) => b.label),
      pooledBytes: this.pooledBytes,
    };
  }

  /** Starts a new peak measurement from the bytes live now. */
  resetPeak(): void {
    this.peakBytes = this.liveBytes;
  }

  destroyAll(): void {
    for (const b of [...this.live.keys()]) b.destroy();
    this.trim();
  }
}

/**
 * `bytes` itself, or a copy where it views a SharedArrayBuffer: Dawn's queue.writeBuffer crashed the process
 * (segmentation fault, lavapipe) on a shared view — emst() of a Float32Array over a SharedArrayBuffer below the
 * staging ring's size (issue 20's workers share point arrays between threads).
 */
export function unshared(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}
