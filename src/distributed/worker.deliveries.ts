/**
 * A task's delivery count as a worker counts it (worker.ts): JetStream's own (the ack reply's), but never below one
 * more than the count this worker last saw for the same stream message.
 *
 * Why: nats-server before 2.10.14 (fixed by nats-io/nats-server#5305, "multiple deliveries of messages with delivery
 * count going backwards") can hand a redelivered message out again with a count of 1. When a redelivery (a nak's
 * delay or the ack wait run out) finds no live pull request — the one it was meant for has just run out, or its
 * client stopped listening — the server moves the consumer's cursor back one message, so the message comes next as a
 * new one: delivery 1, while the server's own count for it goes on from where it was. Debian's nats-server 2.9.10 does
 * this: distributed.worker's 'store never opened' saw deliveries 1, 2, 1, 4 — one attempt more than maxAttempts —
 * while a worker's pulls were as long as its retry delay (worker.ts PULL_MS), and a redelivery taken for a first
 * delivery is computed again even where its result is stored. A worker that saw the earlier deliveries counts on
 * from them; another worker cannot know (a redelivery to it may still say 1).
 */
export class DeliveryCounts {
  /** Message key (its stream sequence, with the task's run and id) → the count last used for it, oldest first. */
  private readonly last = new Map<number | string, number>();

  /** `keep`: the messages remembered (a worker takes one task at a time: a few are enough; default 1024). */
  constructor(private readonly keep = 1024) {
    if (!Number.isInteger(keep) || keep < 1)
      throw new RangeError(`DeliveryCounts keeps at least 1 message, got ${keep}.`);
  }

  /**
   * The count of this delivery of the message `key`, whose ack reply says `told` (≥ 1). The worker keys a message by its
   * stream sequence and its task's run and id: a task stream deleted and made again numbers its messages from 1 anew,
   * and a new task must not take on an old one's count.
   */
  count(key: number | string, told: number): number {
    const before = this.last.get(key);
    const count = before === undefined ? told : Math.max(told, before + 1);
    this.last.delete(key);
    this.last.set(key, count);
    if (this.last.size > this.keep) this.last.delete(this.last.keys().next().value as number | string);
    return count;
  }
}
