/**
 * ScratchPool (src/gpu/scratchpool.ts), with stand-in buffers: what it lends, what it makes, what it frees.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SLACK, ScratchPool } from '../../src/gpu/scratchpool.js';

function fakeContext(maxBinding = 2 ** 30) {
  const made: { label: string; size: number; destroyed: boolean }[] = [];
  const ctx = {
    limits: { maxStorageBufferBindingSize: maxBinding } as GPUSupportedLimits,
    createBuffer(label: string, size: number): GPUBuffer {
      const b = { label, size, destroyed: false, destroy: () => void (b.destroyed = true) };
      made.push(b);
      return b as unknown as GPUBuffer;
    },
  };
  return { ctx, made };
}

const buffer = (label: string, size: number) => ({ label, size, destroy: () => undefined }) as unknown as GPUBuffer;

describe('ScratchPool', () => {
  it('lends the smallest released buffer that fits, makes one when none does', () => {
    const { ctx, made } = fakeContext();
    const pool = new ScratchPool(ctx);
    const a = pool.take('a', 100);
    const b = pool.take('b', 400);
    expect(made.map((m) => m.size)).toEqual([100, 400]);
    pool.release(b);
    pool.release(a);
    expect(pool.take('c', 90)).toBe(a); // 100 fits better than 400
    expect(pool.take('d', 101)).toBe(b);
    expect(pool.take('e', 50)).not.toBe(a); // a is lent: a new one
    expect(made).toHaveLength(3);
    expect(pool.madeBytes).toBe(100 + 400 + 52);
  });

  it('never lends a buffer more than MAX_SLACK times the request, nor one smaller than it', () => {
    const { ctx, made } = fakeContext();
    const pool = new ScratchPool(ctx);
    const big = buffer('big', 1000);
    pool.give(big);
    expect(pool.take('tiny', 4)).not.toBe(big); // 16 bytes at least: 1000 > 4 · 16
    expect(pool.take('quarter', Math.ceil(1000 / MAX_SLACK))).toBe(big);
    pool.release(big);
    expect(pool.take('more', 1004)).not.toBe(big);
    expect(made.map((m) => m.size)).toEqual([16, 1004]);
  });

  it('never lends a buffer larger than a storage binding may be (takers bind it whole)', () => {
    const { ctx, made } = fakeContext(1024);
    const pool = new ScratchPool(ctx);
    const over = buffer('over', 2048);
    pool.give(over);
    expect(pool.take('x', 1000)).not.toBe(over);
    expect(made.map((m) => m.size)).toEqual([1000]);
  });

  it('destroys only what it made; release of a buffer not lent is an error', () => {
    const { ctx, made } = fakeContext();
    const pool = new ScratchPool(ctx);
    const theirs = buffer('theirs', 64);
    pool.give(theirs);
    const x = pool.take('x', 64);
    expect(x).toBe(theirs);
    const y = pool.take('y', 64);
    pool.release(x);
    expect(() => pool.release(x)).toThrow(/released but not taken/);
    expect(() => pool.give(y)).toThrow(/given twice/);
    pool.destroy();
    expect(made).toHaveLength(1);
    expect(made[0].destroyed).toBe(true);
  });
});
