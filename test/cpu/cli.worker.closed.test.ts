/**
 * issue 20: `treeline worker` whose connection the server closed for good (here: the server started again on the same
 * port asking for a user, so that the worker's reconnects are refused and nats.js closes the connection after the
 * second refusal) says so and exits 1 — a known end for a supervisor to restart, printed without a stack — where a
 * worker stopped by SIGTERM exits 0 (distributed.nats.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { exited, startNatsServer, startWorker, stopProcess, type NatsServer } from '../helpers/nats.js';

describe('treeline worker: its connection closed for good', () => {
  it('says so and exits 1, with no stack', async () => {
    const first = await startNatsServer();
    const port = Number(new URL(first.url).port);
    const worker = startWorker(first.url, ['--backend', 'cpu', '--threads', '1']);
    let second: NatsServer | null = null;
    try {
      await worker.waitFor(/worker: connected/);
      await first.stop();
      second = await startNatsServer({ port, args: ['--user', 'someone', '--pass', 'secret'] });
      const end = await Promise.race([
        exited(worker.process),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 60_000)),
      ]);
      const err = worker.stderr();
      expect(end, err).toEqual({ code: 1, signal: null });
      expect(err).toMatch(/worker: the connection to nats:\/\/\S+ closed.*; stopping/);
      expect(err).toMatch(/treeline: the connection to nats:\/\/\S+ closed for good: the worker stopped/);
      expect(err).not.toMatch(/\n\s+at /);
    } finally {
      await stopProcess(worker.process);
      await second?.stop();
      await first.stop();
    }
  }, 120_000);
});
