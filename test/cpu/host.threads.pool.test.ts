/**
 * The worker pool (src/host/threads.ts takeWorkers): idle workers are taken oldest first, so range j of a pass, and
 * a one-worker pass, run on the same worker call after call (whose code is then optimised), whatever order the
 * workers were given back in; and up to 64 idle workers are kept (a coordinator's widest pass).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadNodeThreads, releaseWorkers, takeWorkers, terminateWorkers } from '../../src/host/threads.js';

const dir = mkdtempSync(join(tmpdir(), 'treeline-pool-'));
const script = pathToFileURL(join(dir, 'idle.mjs'));
writeFileSync(
  script,
  "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => undefined);\n",
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('worker pool order', () => {
  it('takes the oldest idle workers first, in thread-id order, however they were released', async () => {
    const node = (await loadNodeThreads())!;
    expect(node).not.toBeNull();
    const first = takeWorkers(node, script, 4);
    const ids = first.map((w) => w.threadId);
    releaseWorkers(script, [first[2], first[0], first[3], first[1]]);
    const again = takeWorkers(node, script, 4);
    expect(again.map((w) => w.threadId)).toEqual([...ids].sort((a, b) => a - b));
    releaseWorkers(script, again.slice().reverse());
    const one = takeWorkers(node, script, 1);
    expect(one[0].threadId).toBe(Math.min(...ids));
    releaseWorkers(script, one);
    terminateWorkers(takeWorkers(node, script, 4));
  });

  it("keeps a coordinator's widest pass idle whole: 64 workers released are the next 64 taken (none started anew)", async () => {
    const node = (await loadNodeThreads())!;
    const wide = takeWorkers(node, script, 64);
    const ids = wide.map((w) => w.threadId).sort((a, b) => a - b);
    releaseWorkers(script, wide);
    const again = takeWorkers(node, script, 64);
    expect(again.map((w) => w.threadId).sort((a, b) => a - b)).toEqual(ids);
    // One more than the pool keeps: that one is terminated when given back.
    const extra = takeWorkers(node, script, 1);
    expect(ids).not.toContain(extra[0].threadId);
    const gone = new Promise<number>((resolve) => extra[0].once('exit', resolve));
    releaseWorkers(script, [...again, ...extra]);
    await gone;
    const last = takeWorkers(node, script, 64);
    expect(last.map((w) => w.threadId).sort((a, b) => a - b)).toEqual(ids);
    await Promise.all(last.map((w) => w.terminate()));
  });
});
