/**
 * Scratch recycled in recording order (issue 17's memory Must: the clustering adds ≤ 48 bytes per point above the
 * MST's peak). A phase `take`s a buffer just before the first command that uses it is recorded and `release`s it
 * just after the last one is: from then on the pool may hand it to a later phase of the same submission (or of a
 * later one), which overwrites it. The GPU runs a queue's commands in order and WebGPU makes each dispatch's writes
 * visible to the next, so the old contents are dead when the new phase writes them — aliasing without a sync and
 * without destroying anything mid-submission (a buffer destroyed before its submission ran is an error).
 *
 * `take` answers with the smallest free buffer that holds the bytes and is at most `MAX_SLACK` times larger (a
 * tiny counter never takes a large buffer) and no larger than a storage binding may be (takers bind it whole: the
 * device's limit, or TREELINE_MAX_BINDING_BYTES'), else a new one the pool owns. A recycled buffer keeps its old
 * label and size and holds stale data: takers bind it whole, write every element they later read, and never use
 * `arrayLength` (condense.wgsl, canonical.wgsl and the radix sorter do not). `give` lends the pool buffers of others
 * that are dead already (still theirs to destroy). `destroy` frees what the pool made, after the last submission
 * that uses it has run.
 */
import type { GpuContext } from './context.js';

/** What a phase needs to get and hand back its scratch (a pool, or plain `createBuffer` + destroy-later). */
export interface ScratchAllocator {
  /** A buffer of ≥ `bytes` bytes (at least 16) for a phase about to be recorded; contents undefined. */
  take(label: string, bytes: number): GPUBuffer;
  /** `buffer`'s last use is recorded: later phases may overwrite it. */
  release(buffer: GPUBuffer): void;
}

/** A free buffer more than this many times larger than a request is not lent for it. */
export const MAX_SLACK = 4;

export class ScratchPool implements ScratchAllocator {
  private readonly free: GPUBuffer[] = [];
  private readonly made = new Set<GPUBuffer>();
  private readonly lent = new Set<GPUBuffer>();

  private readonly maxBinding: number;

  constructor(private readonly ctx: Pick<GpuContext, 'createBuffer' | 'limits'>) {
    this.maxBinding = ctx.limits.maxStorageBufferBindingSize;
  }

  take(label: string, bytes: number): GPUBuffer {
    const want = Math.max(16, Math.ceil(bytes / 4) * 4);
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i].size;
      const fits = size >= want && size <= MAX_SLACK * want && size <= this.maxBinding;
      if (fits && (best < 0 || size < this.free[best].size)) best = i;
    }
    if (best >= 0) {
      const [b] = this.free.splice(best, 1);
      this.lent.add(b);
      return b;
    }
    const b = this.ctx.createBuffer(label, want);
    this.made.add(b);
    this.lent.add(b);
    return b;
  }

  release(buffer: GPUBuffer): void {
    if (!this.lent.delete(buffer)) {
      throw new Error(`gpu::scratchPool: ${buffer.label} released but not taken from this pool (or released twice).`);
    }
    this.free.push(buffer);
  }

  /** Lends the pool others' buffers whose contents are dead from this point of the recording on (not destroyed here). */
  give(...buffers: GPUBuffer[]): void {
    for (const b of buffers) {
      if (this.lent.has(b) || this.free.includes(b)) throw new Error(`gpu::scratchPool: ${b.label} given twice.`);
      this.free.push(b);
    }
  }

  /** Bytes of the buffers the pool made (its own high-water mark: it never frees before `destroy`). */
  get madeBytes(): number {
    let s = 0;
    for (const b of this.made) s += b.size;
    return s;
  }

  /** Frees the buffers the pool made (after the last submission that uses them has run). */
  destroy(): void {
    for (const b of this.made) b.destroy();
    this.made.clear();
    this.free.length = 0;
    this.lent.clear();
  }
}
