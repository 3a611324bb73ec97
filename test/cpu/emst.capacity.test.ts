/**
 * Issue 19: TREELINE_MAX_BINDING_BYTES is validated at the door, and the largest n each GPU entry point takes
 * (src/bvh/capacity.ts) follows from the arrays' bytes per point. test/gpu/emst.capacity.test.ts runs the entry
 * points at these maxima on a real device.
 */
import { describe, expect, it } from 'vitest';
import { capacity, checkCapacity, emstPeakBytesPerPoint } from '../../src/bvh/capacity.js';
import { inPlaceDefault } from '../../src/emst/pipeline.js';
import { checkMaxBindingBytes, maxBindingBytesFromEnv, MIN_BINDING_BYTES } from '../../src/gpu/context.js';
import { InputError } from '../../src/errors.js';

/** The H100's limits (bench/RESULTS.md): 2 GiB − 4 bytes a binding, 16 storage buffers a stage (not lean). */
const H100 = { maxStorageBufferBindingSize: 2 ** 31 - 4, maxStorageBuffersPerShaderStage: 16 };

describe('TREELINE_MAX_BINDING_BYTES', () => {
  it('issue 19: unset or empty leaves the device its own limit; a number of bytes is taken as it is', () => {
    expect(maxBindingBytesFromEnv(undefined)).toBeUndefined();
    expect(maxBindingBytesFromEnv(' ')).toBeUndefined();
    expect(maxBindingBytesFromEnv('1048576')).toBe(1048576);
    expect(maxBindingBytesFromEnv(' 65536 ')).toBe(MIN_BINDING_BYTES);
    // Above any device's limit: accepted, and the context then keeps the device's own (context.ts).
    expect(maxBindingBytesFromEnv('1099511627776')).toBe(2 ** 40);
  });

  it('issue 19: a value that is not a multiple of 4, too small or not a number is an InputError naming it', () => {
    expect(() => maxBindingBytesFromEnv('1000001')).toThrow(InputError);
    expect(() => maxBindingBytesFromEnv('1000001')).toThrow(
      /TREELINE_MAX_BINDING_BYTES to be a whole number of bytes, a multiple of 4 and at least 65536, got 1000001 \(1000000\?\)/,
    );
    expect(() => maxBindingBytesFromEnv('4096')).toThrow(/at least 65536, got 4096\.$/);
    expect(() => maxBindingBytesFromEnv('1MiB')).toThrow(/a number of bytes, got '1MiB'/);
    expect(() => maxBindingBytesFromEnv('-1048576')).toThrow(InputError);
    expect(() => checkMaxBindingBytes(1048576.5)).toThrow(/maxBindingBytes .* got 1048576.5/);
    expect(checkMaxBindingBytes(1048576)).toBe(1048576);
  });
});

describe('capacity(limits, task, dim)', () => {
  it('issue 19: the EMST binds split arrays (Borůvka in subtree windows and parts): 6·10^8 3D points fit the H100', () => {
    // Every array of the Euclidean split path in parts or windows (the BVH build: Karras clears its boxes, the refit
    // in two passes; Borůvka's 4-byte arrays in parts, the merge's winner test in a pass of its own): the refit's
    // boxes pass (sorted points 4, parents 3, boxes 7, ranges 2 at 6·10^8) sets the cap — 3D was 447,392,374 (the
    // one-pass refit's 16 bindings), then 536,870,848 (the 4-byte arrays bound whole).
    expect(capacity(H100, { kind: 'emst' }, 3)).toEqual({
      maxPoints: 626349323,
      limitedBy: 'bvh::refit.boxes',
      parts: true,
    });
    expect(capacity(H100, { kind: 'emst' }, 3).maxPoints).toBeGreaterThanOrEqual(6e8);
    expect(capacity(H100, { kind: 'emst' }, 2)).toEqual({
      maxPoints: 805306273,
      limitedBy: 'bvh::refit.boxes',
      parts: true,
    });
    // Mutual reachability: the traversal's 3 core windows leave the 4-byte arrays one part each (and the k-NN
    // search's parts fill the stage one point above).
    expect(capacity(H100, { kind: 'emst', mutualReachability: true }, 3)).toEqual({
      maxPoints: 536870846,
      limitedBy: 'emst::nearestSplit.mr',
      parts: true,
    });
    const at = { ...H100, maxStorageBufferBindingSize: 1048576 };
    expect(capacity(at, { kind: 'emst' }, 3)).toEqual({
      maxPoints: 305835,
      limitedBy: 'bvh::refit.boxes',
      parts: true,
    });
    expect(capacity(at, { kind: 'emst' }, 2)).toEqual({
      maxPoints: 393217,
      limitedBy: 'bvh::refit.boxes',
      parts: true,
    });
    // Below 512 KiB a binding holds less than one window of the changes' scan (primitives/scan.ts): they bind whole.
    const small = { ...H100, maxStorageBufferBindingSize: 65536 };
    expect(capacity(small, { kind: 'emst' }, 3)).toEqual({ maxPoints: 16384, limitedBy: 'emst::changes' });
    // mstStats still binds the links whole.
    expect(capacity(at, { kind: 'mstStats' }, 3).maxPoints).toBe(65536);
  });

  it('issue 19: above 4 dimensions the points (4·dim bytes a point) cap what binds them whole', () => {
    expect(capacity(H100, { kind: 'mstStats' }, 8)).toEqual({
      maxPoints: Math.floor((2 ** 31 - 4) / 32),
      limitedBy: 'emst::points',
    });
  });

  it('issue 19: where the traversal runs lean (fewer than 15 buffers a stage) the boxes sit in one binding', () => {
    const lean = { ...H100, maxStorageBuffersPerShaderStage: 10 };
    // 24-byte 3D box records (the default f32 boxes, bvh/layout.ts), 32 records to a part's alignment, one record per
    // internal node (n − 1).
    const records = Math.floor((2 ** 31 - 4) / 24 / 32) * 32;
    // … and the split traversal's 15 cannot bind: the arrays whole, as before issue 19.
    expect(capacity(lean, { kind: 'emst' }, 3)).toEqual({ maxPoints: records + 1, limitedBy: 'bvh::boxes' });
  });

  it('issue 19: knn() binds its arrays in parts, capped by the stage’s bindings whatever k', () => {
    const L = 1048576;
    const at = { ...H100, maxStorageBufferBindingSize: L };
    // The search's parts in 3D at 262,144 points: 2 + points 3, order 1, links 2, minIndex 2, boxes 6 = 16; one point
    // more takes 20 (2D alike). The build's refit no longer caps it (3D was 218,454: bvh/refit.ts).
    for (const k of [2, 64]) {
      expect(capacity(at, { kind: 'knn', k }, 3)).toEqual({ maxPoints: 262144, limitedBy: 'knn::search', parts: true });
    }
    expect(capacity(at, { kind: 'knn', k: 8 }, 2)).toEqual({
      maxPoints: 262144,
      limitedBy: 'knn::search',
      parts: true,
    });
    // The H100: issue 19's Must of 4·10^8 3D points fits the k-NN (and its build).
    expect(capacity(H100, { kind: 'knn', k: 8 }, 3).maxPoints).toBeGreaterThan(4e8);
  });

  it('issue 19: hdbscan() on the GPU is capped by its Euler tokens or rows', () => {
    const L = 1048576;
    const at = { ...H100, maxStorageBufferBindingSize: L };
    // 8 bytes for each of 3n − 1 tokens: 24n − 8 ≤ L.
    const tokens = Math.floor((L + 8) / 24);
    expect(capacity(at, { kind: 'hdbscan', minClusterSize: 5, resident: true }, 3)).toEqual({
      maxPoints: tokens,
      limitedBy: 'cluster::linkage.own',
    });
    // minClusterSize 2: n + 2(⌊n/2⌋ − 1) rows, whose 8-byte sort keys (about 16 bytes a point) stay below the tokens
    // since the rows are written straight into 4-byte columns (issue 17).
    expect(capacity(at, { kind: 'hdbscan', minClusterSize: 2, resident: true }, 3)).toEqual({
      maxPoints: tokens,
      limitedBy: 'cluster::linkage.own',
    });
    expect(capacity(at, { kind: 'hdbscan', minClusterSize: 2, resident: false }, 3).maxPoints).toBe(L / 16);
  });

  it('issue 19: checkCapacity passes at the maximum and refuses one more in one line, naming the array and limit', () => {
    const at = { ...H100, maxStorageBufferBindingSize: 1048576 };
    expect(() => checkCapacity(at, 65536, 3, { kind: 'mstStats' }, 2 ** 31 - 4)).not.toThrow();
    expect(() => checkCapacity(at, 65537, 3, { kind: 'mstStats' }, 2 ** 31 - 4)).toThrow(
      'mstStats on the GPU takes at most 65536 points in 3 dimensions on this device, got 65537: its bvh::links array must ' +
        "fit one 1048576-byte storage binding (TREELINE_MAX_BINDING_BYTES; the device binds 2147483644); use backend 'cpu'.",
    );
    // Not lowered: the device's own limit, no mention of the variable.
    expect(() => checkCapacity(H100, 2 ** 27, 2, { kind: 'mstStats' })).toThrow(
      /^mstStats on the GPU takes at most 134217727 points in 2 dimensions on this device, got 134217728: its bvh::links array must fit one 2147483644-byte storage binding; use backend 'cpu'\.$/,
    );
    // A split EMST: the kernel whose parts fill the stage, or the array still bound whole.
    expect(() => checkCapacity(H100, 6e8, 3, { kind: 'emst' })).not.toThrow();
    expect(() => checkCapacity(H100, 626349324, 3, { kind: 'emst' })).toThrow(
      'emst on the GPU takes at most 626349323 points in 3 dimensions on this device, got 626349324: its ' +
        "bvh::refit.boxes kernel binds its arrays in parts of one 2147483644-byte storage binding, at most 16 a stage; use backend 'cpu'.",
    );
    expect(() => checkCapacity(H100, 6e8, 3, { kind: 'emst', mutualReachability: true })).toThrow(
      /got 600000000: its emst::nearestSplit.mr kernel binds its arrays in parts/,
    );
    expect(() =>
      checkCapacity({ ...at, maxStorageBufferBindingSize: 65536 }, 16385, 2, { kind: 'emst' }, 2 ** 31 - 4),
    ).toThrow(/got 16385: its emst::changes array must fit one 65536-byte storage binding/);
    // hdbscan above the GPU clustering's cap but within the MST's: the host clustering is offered.
    expect(() =>
      checkCapacity(at, 50000, 3, { kind: 'hdbscan', minClusterSize: 5, resident: true }, 2 ** 31 - 4),
    ).toThrow(/takes at most 43691 points .* TREELINE_RESIDENT=0 \(clustering on the host\) takes up to 65536\.$/);
  });
});

describe('emstPeakBytesPerPoint(dim, options)', () => {
  it("issue 19: the EMST's peak beyond the input — 3D 96.5 in place with f32 boxes, the default (108.5 with a sorted copy), 2D 88.5, +12 with mutual reachability; u16 boxes 4·dim less: 3D 84.5", () => {
    const f32 = { boxes: 'f32' } as const;
    // 8-byte links (their minIndex words in Borůvka's edges) and bestMax in the upper bounds' buffer (bvh/layout.ts,
    // emst/bestmax.wgsl): 12 bytes a point below the 108.5 of before.
    expect(emstPeakBytesPerPoint(3, f32)).toBe(96.5);
    expect(emstPeakBytesPerPoint(3, { ...f32, inPlace: false })).toBe(108.5);
    expect(emstPeakBytesPerPoint(2, f32)).toBe(88.5);
    expect(emstPeakBytesPerPoint(2, { ...f32, inPlace: false })).toBe(96.5);
    expect(emstPeakBytesPerPoint(3, { ...f32, mutualReachability: true })).toBe(108.5);
    // The boxes (8·dim) and, with a sorted copy, the sorted points (4·dim) grow with the dimension; the rest does not.
    expect(emstPeakBytesPerPoint(16, f32) - emstPeakBytesPerPoint(3, f32)).toBe(8 * 13);
    expect(emstPeakBytesPerPoint(16, { ...f32, inPlace: false }) - emstPeakBytesPerPoint(16, f32)).toBe(4 * 16);
    // u16 boxes (bvh/layout.ts, opt-in: TREELINE_BVH_BOXES=u16): 4·dim bytes a point instead of 8·dim.
    for (const dim of [1, 2, 3, 16]) {
      expect(emstPeakBytesPerPoint(dim, f32) - emstPeakBytesPerPoint(dim, { boxes: 'u16' })).toBe(4 * dim);
    }
    expect(emstPeakBytesPerPoint(3, { boxes: 'u16' })).toBe(84.5);
    // Issue 19's Must (≤ 100 in 3D) by default: f32 boxes (outliers: layout.ts DEFAULT_BOXES).
    expect(emstPeakBytesPerPoint(3)).toBe(96.5);
    expect(emstPeakBytesPerPoint(3)).toBeLessThanOrEqual(100);
    expect(emstPeakBytesPerPoint(2)).toBe(88.5);
  });
});

describe('TREELINE_EMST_INPLACE', () => {
  it('issue 19: unset, empty or 1 builds in place, 0 keeps a sorted copy, anything else is an InputError naming it', () => {
    const old = process.env.TREELINE_EMST_INPLACE;
    try {
      delete process.env.TREELINE_EMST_INPLACE;
      expect(inPlaceDefault()).toBe(true);
      for (const [value, want] of [
        ['', true],
        ['1', true],
        ['0', false],
      ] as const) {
        process.env.TREELINE_EMST_INPLACE = value;
        expect(inPlaceDefault(), `'${value}'`).toBe(want);
      }
      process.env.TREELINE_EMST_INPLACE = 'yes';
      expect(() => inPlaceDefault()).toThrow(InputError);
      expect(() => inPlaceDefault()).toThrow(/TREELINE_EMST_INPLACE: expected 0 or 1, got 'yes'/);
    } finally {
      if (old === undefined) delete process.env.TREELINE_EMST_INPLACE;
      else process.env.TREELINE_EMST_INPLACE = old;
    }
  });
});
