/**
 * The largest graph the GPU graph MSF takes on a device (issue 19), checked before anything is uploaded and printed
 * by `treeline info`. Where every array fits one storage binding the fast path runs (eclmst.ts, `fitsWhole`); else
 * the arrays of the edges are bound per window (eclsplit.ts), so the edges are limited by memory and by
 * maxBufferSize (16 bytes a candidate edge in each worklist, one buffer each), and the 4-byte vertex arrays
 * (union-find, records, the CSR's row starts, the forest) are bound in parts (gpu/bigarray.ts): the filter binds
 * four of them beside three other storage buffers, so with 16 storage buffers a stage each takes 3 parts, and the
 * vertices are at most 3 parts' elements − 1 (786,431 at 1 MiB, 1,610,612,543 at the H100's 2 GiB − 4).
 */
import { partElements } from '../gpu/bigarray.js';
import { InputError } from '../errors.js';

export interface GraphLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  minStorageBufferOffsetAlignment: number;
  maxStorageBuffersPerShaderStage: number;
}

/** The split filter's storage buffers besides its vertex arrays (state, two worklist segments), and its arrays. */
const FILTER_FIXED = 3;
const FILTER_ARRAYS = 4;

/** Bytes of a worklist entry on split arrays (eclsplit.ts), and the padding each worklist segment may add. */
const ENTRY = 16;
const SEGMENT_PAD = 256;

/**
 * Whether the fast path binds every array of a graph whole: its worklists (12 bytes a candidate edge), the arrays of
 * its edge slots and its 8-byte vertex records each fit one binding.
 */
export function fitsWhole(limits: GraphLimits, numVertices: number, slots: number, candidates: number): boolean {
  const b = limits.maxStorageBufferBindingSize;
  return 12 * Math.max(1, candidates) <= b && 4 * slots <= b && 8 * numVertices <= b;
}

export interface GraphCapacity {
  /** The most vertices (after compaction: those some edge touches, compact.ts). */
  maxVertices: number;
  /** The most candidate edges on split arrays (the worklists within maxBufferSize). */
  maxCandidates: number;
}

export function graphCapacity(limits: GraphLimits): GraphCapacity {
  const perWindow = Math.floor(limits.maxStorageBufferBindingSize / ENTRY);
  const parts = Math.floor((limits.maxStorageBuffersPerShaderStage - FILTER_FIXED) / FILTER_ARRAYS);
  return {
    maxVertices: parts * partElements(limits, 4) - 1,
    // 16 bytes a candidate plus one segment's padding per window of slots, within one buffer.
    maxCandidates: Math.floor(limits.maxBufferSize / (ENTRY + SEGMENT_PAD / perWindow)),
  };
}

/**
 * Throws a one-line InputError where a graph of numVertices vertices, `slots` edge slots and `candidates` candidate
 * edges (validate.ts) is beyond what the device takes on the GPU.
 */
export function checkGraphCapacity(limits: GraphLimits, numVertices: number, slots: number, candidates: number): void {
  if (fitsWhole(limits, numVertices, slots, candidates)) return;
  const c = graphCapacity(limits);
  if (numVertices > c.maxVertices) {
    throw new InputError(
      `graphMst on the GPU takes at most ${c.maxVertices} vertices on this device, got ${numVertices}: its 4-byte ` +
        `vertex arrays are bound in parts of one ${limits.maxStorageBufferBindingSize}-byte storage binding, at most ` +
        `${limits.maxStorageBuffersPerShaderStage} a stage; use backend 'cpu'.`,
    );
  }
  if (candidates > c.maxCandidates || 4 * slots > limits.maxBufferSize) {
    throw new InputError(
      `graphMst on the GPU takes at most ${c.maxCandidates} edges on this device, got ${candidates} (${slots} slots): ` +
        `its worklists (16 bytes an edge) must fit one buffer of maxBufferSize ${limits.maxBufferSize} bytes; use backend 'cpu'.`,
    );
  }
}
