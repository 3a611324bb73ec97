/**
 * GPU timings from timestamp queries, by named scope: every compute pass (one per dispatch) is timed under its
 * kernel's label, so profiles speak the same `layer::thing` names as errors. Without the `timestamp-query`
 * feature the timer is a no-op that reports nothing.
 */
import type { GpuContext } from './context.js';
import { Usage } from './usage.js';

export interface TimerEntry {
  label: string;
  /** Milliseconds from the pass's beginning to its end. */
  ms: number;
  /** The pass's beginning and end, in ms after the first timed pass's beginning (for spans and gaps). */
  start: number;
  end: number;
}

export class Timer {
  private readonly querySet: GPUQuerySet | null;
  private readonly resolveBuffer: GPUBuffer | null;
  private readonly labels: string[] = [];
  private resolvedUpTo = 0;
  /** The number of passes that can be timed before `read()`/`reset()` (at most 2048). */
  readonly capacity: number;

  /** `capacity`: the number of passes that can be timed before `read()`/`reset()`. */
  constructor(
    private readonly ctx: GpuContext,
    capacity = 2048,
  ) {
    // WebGPU allows at most 4096 queries per query set: two per timed pass.
    this.capacity = Math.min(capacity, 2048);
    if (!ctx.features.timestampQuery) {
      this.querySet = null;
      this.resolveBuffer = null;
      return;
    }
    this.querySet = ctx.device.createQuerySet({ label: 'gpu::timer', type: 'timestamp', count: 2 * this.capacity });
    this.resolveBuffer = ctx.device.createBuffer({
      label: 'gpu::timerResolve',
      size: 16 * this.capacity,
      usage: Usage.QUERY_RESOLVE | Usage.COPY_SRC,
    });
  }

  /** Whether timings are collected at all. */
  get enabled(): boolean {
    return this.querySet !== null;
  }

  /** The timestamp writes for the next pass, or undefined when disabled or full. */
  writesFor(label: string): GPUComputePassTimestampWrites | undefined {
    if (!this.querySet || this.labels.length >= this.capacity) return undefined;
    const i = this.labels.length;
    this.labels.push(label);
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 };
  }

  /** Resolves the queries written since the last resolve (called by the recorder at the end of a submission). */
  encodeResolve(enc: GPUCommandEncoder): void {
    if (!this.querySet || !this.resolveBuffer) return;
    const to = 2 * this.labels.length;
    if (to === 2 * this.resolvedUpTo) return;
    // The destination offset must be a multiple of 256 bytes (32 queries): re-resolve from the aligned start,
    // which rewrites the same timestamps for the queries already resolved.
    const from = Math.floor((2 * this.resolvedUpTo) / 32) * 32;
    enc.resolveQuerySet(this.querySet, from, to - from, this.resolveBuffer, 8 * from);
    this.resolvedUpTo = this.labels.length;
  }

  /** Reads every timed pass since the last reset, in submission order. */
  async read(): Promise<TimerEntry[]> {
    if (!this.resolveBuffer || this.labels.length === 0) return [];
    const raw = await this.ctx.read(this.resolveBuffer, 0, 16 * this.labels.length);
    const t = new BigUint64Array(raw);
    const t0 = t[0];
    const ms = (x: bigint) => Number(x - t0) / 1e6;
    return this.labels.map((label, i) => ({
      label,
      ms: Number(t[2 * i + 1] - t[2 * i]) / 1e6,
      start: ms(t[2 * i]),
      end: ms(t[2 * i + 1]),
    }));
  }

  /** Sums of `read()` per label, in first-seen order. */
  async summary(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const e of await this.read()) out.set(e.label, (out.get(e.label) ?? 0) + e.ms);
    return out;
  }

  reset(): void {
    this.labels.length = 0;
    this.resolvedUpTo = 0;
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
  }
}
