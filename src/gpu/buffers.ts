/**
 * Buffer creation with ownership tracking: every buffer made through the context is labelled, counted while it
 * lives, and contributes to a peak-memory figure (the benchmarks' "peak of live GPU buffers"). A buffer's
 * `destroy()` untracks it; `destroyAll()` is the context's last act.
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
}

/** Storage buffers can be read, written, copied from and to, and used for indirect dispatch. */
const STORAGE_USAGE = Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST;

export class BufferTracker {
  private readonly live = new Map<GPUBuffer, number>();
  private liveBytes = 0;
  private peakBytes = 0;

  constructor(private readonly device: GPUDevice) {}

  /** A labelled buffer of at least `byteLength` bytes (rounded up to 4, at least 4), storage usage plus `usage`. */
  create(label: string, byteLength: number, usage = 0): GPUBuffer {
    const size = Math.max(4, Math.ceil(byteLength / 4) * 4);
    const buf = this.device.createBuffer({ label, size, usage: STORAGE_USAGE | usage });
    this.track(buf, size);
    return buf;
  }

  /** A labelled buffer holding a copy of `data` (zero-padded to a multiple of 4 bytes). */
  upload(label: string, data: ArrayBufferView, usage = 0): GPUBuffer {
    const size = Math.max(4, Math.ceil(data.byteLength / 4) * 4);
    const buf = this.device.createBuffer({ label, size, usage: STORAGE_USAGE | usage, mappedAtCreation: true });
    new Uint8Array(buf.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    buf.unmap();
    this.track(buf, size);
    return buf;
  }

  private track(buf: GPUBuffer, size: number): void {
    this.live.set(buf, size);
    this.liveBytes += size;
    if (this.liveBytes > this.peakBytes) this.peakBytes = this.liveBytes;
    const destroy = buf.destroy.bind(buf);
    // Untrack on destroy: every createBuffer has its destroy in the module that made it (CONVENTIONS.md 7).
    Object.defineProperty(buf, 'destroy', {
      configurable: true,
      value: () => {
        const s = this.live.get(buf);
        if (s !== undefined) {
          this.live.delete(buf);
          this.liveBytes -= s;
        }
        destroy();
      },
    });
  }

  stats(): MemoryStats {
    return {
      liveBytes: this.liveBytes,
      peakBytes: this.peakBytes,
      liveBuffers: this.live.size,
      liveLabels: [...this.live.keys()].map((b) => b.label),
    };
  }

  /** Starts a new peak measurement from the bytes live now. */
  resetPeak(): void {
    this.peakBytes = this.liveBytes;
  }

  destroyAll(): void {
    for (const b of [...this.live.keys()]) b.destroy();
  }
}
