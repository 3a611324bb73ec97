/**
 * Issue 19: the largest graph the GPU graph MSF takes (src/graph/capacity.ts) — the fast path wherever every array
 * fits one binding, else the split path's vertex and edge caps — and the one-line input error above them.
 */
import { describe, expect, it } from 'vitest';
import { checkGraphCapacity, fitsWhole, graphCapacity } from '../../src/graph/capacity.js';
import { InputError } from '../../src/errors.js';

const STAGE = { minStorageBufferOffsetAlignment: 256, maxStorageBuffersPerShaderStage: 16 };
const MIB = { ...STAGE, maxStorageBufferBindingSize: 1 << 20, maxBufferSize: 2 ** 32 };
const H100 = { ...STAGE, maxStorageBufferBindingSize: 2 ** 31 - 4, maxBufferSize: 2 ** 40 };

describe('graph MSF capacity', () => {
  it('issue 19: the fast path binds whole while worklists (12 B an edge), slots and 8-byte records fit', () => {
    const b = MIB.maxStorageBufferBindingSize;
    expect(fitsWhole(MIB, b / 8, b / 4, Math.floor(b / 12))).toBe(true);
    expect(fitsWhole(MIB, b / 8 + 1, 10, 10)).toBe(false);
    expect(fitsWhole(MIB, 10, b / 4 + 1, 10)).toBe(false);
    expect(fitsWhole(MIB, 10, b / 4, Math.floor(b / 12) + 1)).toBe(false);
    expect(fitsWhole(MIB, 0, 0, 0)).toBe(true);
  });

  it('issue 19: split arrays take 3 parts of vertices − 1 and the edges whose worklists fit maxBufferSize', () => {
    expect(graphCapacity(MIB).maxVertices).toBe(3 * 262144 - 1);
    // Parts of 2^29 − 64 elements (whole multiples of the 256-byte offset alignment within 2^31 − 4 bytes).
    expect(graphCapacity(H100).maxVertices).toBe(3 * (2 ** 29 - 64) - 1);
    expect(graphCapacity({ ...MIB, maxStorageBuffersPerShaderStage: 8 }).maxVertices).toBe(262143);
    // 16 bytes an edge and 256 bytes of padding per window of 65,536 entries.
    expect(graphCapacity(MIB).maxCandidates).toBe(Math.floor(2 ** 32 / (16 + 256 / 65536)));
    expect(16 * graphCapacity(H100).maxCandidates).toBeLessThanOrEqual(2 ** 40);
  });

  it('issue 19: a graph above the caps is a one-line InputError naming the count and the cap; at the caps none', () => {
    expect(() => checkGraphCapacity(MIB, 786431, 4 << 20, 2 << 20)).not.toThrow();
    expect(() => checkGraphCapacity(MIB, 786432, 100, 100)).toThrow(InputError);
    expect(() => checkGraphCapacity(MIB, 786432, 100, 100)).toThrow(
      /^graphMst on the GPU takes at most 786431 vertices on this device, got 786432: its 4-byte vertex arrays are bound in parts of one 1048576-byte storage binding, at most 16 a stage; use backend 'cpu'\.$/,
    );
    const small = { ...STAGE, maxStorageBufferBindingSize: 1 << 20, maxBufferSize: 16 << 20 };
    const cap = graphCapacity(small).maxCandidates;
    expect(() => checkGraphCapacity(small, 1000, cap, cap)).not.toThrow();
    expect(() => checkGraphCapacity(small, 1000, cap + 1, cap + 1)).toThrow(
      /^graphMst on the GPU takes at most \d+ edges on this device, got \d+ \(\d+ slots\): its worklists \(16 bytes an edge\) must fit one buffer of maxBufferSize 16777216 bytes; use backend 'cpu'\.$/,
    );
    // A device whose buffers are no larger than its bindings keeps what the fast path binds whole.
    const tight = { ...STAGE, maxStorageBufferBindingSize: 1 << 20, maxBufferSize: 1 << 20 };
    expect(() => checkGraphCapacity(tight, 1000, (1 << 20) / 4, 80000)).not.toThrow();
  });
});
