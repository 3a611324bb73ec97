/**
 * The shared CLI helpers of src/cli/options.ts (the progress bar: cli.progress.test.ts): CSV chunks with
 * shortest float32 digits, JSON with typed arrays and infinities, format resolution and option parsers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { csvChunks, integerList, jsonChunks, resolveFormat, toJson } from '../../src/cli/options.js';
import { InputError } from '../../src/errors.js';

afterEach(() => void vi.useRealTimers());

describe('output formatting', () => {
  it('csvChunks: header, rows in chunks, float32 in the fewest digits that read back exactly', () => {
    const w = Float32Array.from([0.1, 1 / 3, 2, 1e-8]);
    const text = [...csvChunks({ i: Uint32Array.from([0, 1, 2, 3]), w, p: Float64Array.from([0.5, 1 / 3, 1, 0]) }, 3)];
    expect(text.length).toBe(3); // header + 2 chunks
    const rows = text.join('').trim().split('\n');
    expect(rows[0]).toBe('i,w,p');
    expect(rows[1]).toBe('0,0.1,0.5');
    expect(rows.slice(1).map((r) => Math.fround(Number(r.split(',')[1])))).toEqual(Array.from(w));
    expect(rows[2].split(',')[2]).toBe(String(1 / 3));
    expect(() => [...csvChunks({ a: new Int32Array(2), b: new Int32Array(3) })]).toThrow(InputError);
  });

  it('toJson: typed arrays as arrays, non-finite numbers as strings', () => {
    expect(JSON.parse(toJson({ a: Float64Array.from([1, Infinity, NaN]), b: { c: Uint32Array.from([7]) } }))).toEqual({
      a: [1, 'Infinity', 'NaN'],
      b: { c: [7] },
    });
  });

  it('jsonChunks: the text of toJson and a newline, top-level typed arrays in chunks of numbers', () => {
    const w = Float32Array.from([0.1, -0, Infinity, -Infinity, NaN, 3e38, 1e-45, 2.5, 7, 8]);
    const values: unknown[] = [
      { n: 10, backend: 'gpu', total: NaN, skip: undefined, f: () => 1, w, ids: Uint32Array.from([4, 0, 4294967295]) },
      { empty: new Float64Array(0), nested: { c: Uint32Array.from([7]), d: [1, undefined] }, list: [w.subarray(0, 2)] },
      { timings: { 'emst::total': 12.5 }, i32: Int32Array.from([-2147483648, 5]) },
      {},
      [1, 2],
      w,
      'text',
      null,
      { toJSON: () => ({ a: 1 }) },
    ];
    for (const v of values) {
      for (const items of [1, 3, 1 << 16]) expect([...jsonChunks(v, items)].join('')).toBe(toJson(v) + '\n');
    }
    // 10 weights in chunks of 3 numbers: 4 chunks between '[' and ']'.
    const chunks = [...jsonChunks({ w }, 3)];
    expect(chunks.slice(chunks.indexOf('[') + 1, chunks.indexOf(']'))).toHaveLength(4);
    expect(JSON.parse(chunks.join(''))).toEqual({ w: JSON.parse(toJson(w)) });
  });

  it('resolveFormat: --format wins, else json for a .json output, else csv', () => {
    expect(resolveFormat({})).toBe('csv');
    expect(resolveFormat({ output: 'x.JSON' })).toBe('json');
    expect(resolveFormat({ output: 'x.json', format: 'csv' })).toBe('csv');
    expect(resolveFormat({ output: 'dir', format: 'npy' })).toBe('npy');
  });

  it('integerList names the option and the bad value', () => {
    const parse = integerList('--min-cluster-size', 2);
    expect(parse('5, 10,20')).toEqual([5, 10, 20]);
    expect(() => parse('5,,10')).toThrow(/--min-cluster-size: expected an integer ≥ 2, got ''/);
    expect(() => parse('2.5')).toThrow(/got '2.5'/);
  });
});
