/**
 * DeliveryCounts (src/distributed/worker.deliveries.ts): a worker's count of a task's deliveries never goes back for a
 * message it took before, as nats-server before 2.10.14 made it go (distributed.worker's 'store never opened' saw
 * deliveries 1, 2, 1, 4 on Debian's 2.9.10: retried three times where two were due). Pure: the server's counts are
 * given as numbers.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryCounts } from '../../src/distributed/worker.deliveries.js';

describe('DeliveryCounts', () => {
  it('counts as the server counts where its count only grows', () => {
    const counts = new DeliveryCounts();
    expect([1, 2, 3].map((told) => counts.count(7, told))).toEqual([1, 2, 3]);
    // A delivery the worker never got (lost on the way: the server counted it) leaves a gap, kept.
    expect([1, 3, 4].map((told) => counts.count(8, told))).toEqual([1, 3, 4]);
  });

  it("the server's 1, 2, 1, 4 of one message (nats-io/nats-server#5305) count 1, 2, 3, 4", () => {
    const counts = new DeliveryCounts();
    expect([1, 2, 1, 4].map((told) => counts.count(11, told))).toEqual([1, 2, 3, 4]);
  });

  it('counts each stream message apart', () => {
    const counts = new DeliveryCounts();
    expect(counts.count(1, 1)).toBe(1);
    expect(counts.count(2, 1)).toBe(1);
    expect(counts.count(1, 1)).toBe(2);
    expect(counts.count(2, 2)).toBe(2);
    expect(counts.count(3, 5)).toBe(5);
  });

  it('forgets the oldest message past `keep`, and one seen again is the newest', () => {
    const counts = new DeliveryCounts(2);
    counts.count(1, 1);
    counts.count(2, 1);
    counts.count(1, 1); // message 1 again: now the newest (count 2)
    counts.count(3, 1); // past keep: message 2, the oldest, is forgotten
    expect(counts.count(1, 1)).toBe(3);
    expect(counts.count(2, 1)).toBe(1);
  });

  it('takes a keep of at least one, naming the value', () => {
    expect(() => new DeliveryCounts(0)).toThrow('got 0');
    expect(() => new DeliveryCounts(1.5)).toThrow('got 1.5');
  });
});
