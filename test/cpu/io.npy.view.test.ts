/**
 * .npy and ArborX .bin points read without a second copy (issue 19: a catalogue is held once on the host): aligned
 * little-endian float32 in C order comes back as a view of the file's bytes, with the values the converting path
 * gives; everything else (float64, big-endian, Fortran order, misaligned) is converted into a fresh array.
 */
import { describe, expect, it } from 'vitest';
import { npyToPoints, parseNpy, writeNpy } from '../../src/io/npy.js';
import { parseBinPoints, writeBinPoints } from '../../src/io/points.bin.js';

const values = Float32Array.from({ length: 7 * 3 }, (_, i) => (i * 0.37 - 2) ** 3);

describe('points as views of the file bytes', () => {
  it('.npy float32: a view with the same values; float64: a converted copy with the same values', () => {
    const bytes = writeNpy(values, [7, 3]);
    const t = npyToPoints(parseNpy(bytes));
    expect(t.points.buffer).toBe(bytes.buffer);
    expect(Array.from(t.points)).toEqual(Array.from(values));
    const f64 = writeNpy(Float64Array.from(values), [7, 3]);
    const u = npyToPoints(parseNpy(f64));
    expect(u.points.buffer).not.toBe(f64.buffer);
    expect(Array.from(u.points)).toEqual(Array.from(values));
  });

  it('.npy float32 misaligned in its buffer: a copy, same values', () => {
    const bytes = writeNpy(values, [7, 3]);
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    const t = npyToPoints(parseNpy(shifted));
    expect(t.points.buffer).not.toBe(shifted.buffer);
    expect(Array.from(t.points)).toEqual(Array.from(values));
  });

  it('.bin: a view where aligned, a copy where not, the same values', () => {
    const bytes = writeBinPoints(values, 3);
    const t = parseBinPoints(bytes);
    expect(t.points.buffer).toBe(bytes.buffer);
    expect([t.n, t.dim]).toEqual([7, 3]);
    expect(Array.from(t.points)).toEqual(Array.from(values));
    const shifted = new Uint8Array(bytes.length + 2).subarray(2);
    shifted.set(bytes);
    const u = parseBinPoints(shifted);
    expect(u.points.buffer).not.toBe(shifted.buffer);
    expect(Array.from(u.points)).toEqual(Array.from(values));
  });
});
