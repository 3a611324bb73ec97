/**
 * An EdgeSink (src/distributed/types.ts) over the three .npy files of an edge list — sources.npy, targets.npy and
 * weights.npy in one folder, byte for byte what writeNpyDir writes for emst's result — for `treeline emst --nats …
 * --format npy -o dir`: the 'pairs' method's threaded merge (merge.threads.ts) writes every element in place as it
 * merges, so the files' bytes, and their writeback to the disk, go out while the merge runs instead of after it.
 *
 * Why: at 2·10^8 points (three files of 800 MB) on the H100 x2 / H200 x2 hosts, the merge took 0.85–0.94 s and the
 * write after it 1.35–1.65 s. Of the write, the copy into the page cache was 0.2–0.5 s and the fsync 0.5–1.0 s (the
 * disk takes ~1.5–2 GB/s: 1.5 GB/s by `dd oflag=direct`, 2.4 GB written and fsynced in 1.2–1.3 s), so what has to
 * overlap the merge is the writeback, not just the copy. The kernel starts writing dirty pages back on its own only
 * past dirty_background_ratio (10 % of memory: 25 GB on those hosts) or after 30 s, so while the files are open each
 * is fdatasync'ed again as soon as its last one returned (at most every WRITEBACK_MS): the disk works from the first
 * written block on.
 *
 * Durability and atomicity as writeNpyDir's: the files are temporaries of the run's AtomicOutputs (renamed by its
 * commit, removed by its discard: a failure or a signal), and each is fsynced before `finish` resolves.
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { EdgeSink, EdgeSinkFiles } from './sink.js';
import { InputError } from '../errors.js';
import { npyHeader } from './npy.js';
import type { AtomicOutputs } from './write.js';

/** The files, in EdgeSinkFiles' order, and their element types (for the header). */
const ARRAYS: [string, Uint32Array | Float32Array][] = [
  ['sources', new Uint32Array(0)],
  ['targets', new Uint32Array(0)],
  ['weights', new Float32Array(0)],
];

/**
 * The shortest time between two writeback rounds' starts (fdatasync of every file) while the files are written: a
 * round took ~80 ms under the emulated merge at 2·10^8 (12–13 rounds in 1 s, bench/RESULTS.md), so the pause only
 * keeps a loop with nothing to write back from spinning.
 */
const WRITEBACK_MS = 20;

const errorCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

export class NpyEdgeSink implements EdgeSink {
  private state: 'new' | 'open' | 'done' | 'abandoned' | 'closed' = 'new';
  private readonly handles: FileHandle[] = [];
  private readonly targets: string[] = [];
  /** Each file's byte of element 0 (its header's length). */
  private readonly starts: number[] = [];
  private writeback: Promise<void> = Promise.resolve();
  private synced: Promise<void> | null = null;
  /** Ends the writeback loop's pause at once (done, abandon, close). */
  private wake: () => void = () => {};
  /** The first failed writeback round's error, reported by finish(). */
  private failed: { target: string; error: unknown } | null = null;
  /** Writeback rounds (fdatasync of every file) and final fsyncs made: what the tests look at. */
  readonly counts = { datasyncs: 0, fsyncs: 0 };

  /** `dir`: -o (created through `outputs` where missing). */
  constructor(
    private readonly outputs: AtomicOutputs,
    private readonly dir: string,
  ) {}

  /** Whether every element was written (EdgeSinkFiles.done): finish() then makes the files durable. */
  get written(): boolean {
    return this.state === 'done';
  }

  /** The three temporaries, each with its header and its full size (m elements), and the writeback loop started. */
  async open(m: number): Promise<EdgeSinkFiles | null> {
    if (this.state !== 'new') throw new Error(`NpyEdgeSink: ${this.dir} opened twice.`);
    if (m === 0) return null;
    this.state = 'open';
    const files: { fd: number; at: number }[] = [];
    try {
      this.outputs.mkdir(this.dir);
      for (const [name, type] of ARRAYS) {
        const target = join(this.dir, `${name}.npy`);
        this.handles.push(await this.outputs.create(target));
        this.targets.push(target);
        const handle = this.handles[this.handles.length - 1];
        const head = npyHeader(type, [m]);
        try {
          await handle.write(head, 0, head.length, 0);
          await handle.truncate(head.length + 4 * m);
        } catch (e) {
          throw new InputError(`${target}: cannot write (${errorCode(e)}).`);
        }
        files.push({ fd: handle.fd, at: head.length });
        this.starts.push(head.length);
      }
    } catch (e) {
      await this.abandon();
      throw e;
    }
    this.writeback = this.writebackLoop();
    return {
      files,
      write: (file, data, from, to) => this.write(file, data, from, to),
      failure: (file, f) => new InputError(`${this.targets[file]}: cannot write (${f.code ?? f.message}).`),
      done: () => this.done(),
      abandon: () => this.abandon(),
    };
  }

  /** Waits for every file's fsync (started by done()), then closes them; a failed write-back or fsync throws. */
  async finish(): Promise<void> {
    if (this.state !== 'done' || this.synced === null) throw new Error(`NpyEdgeSink: ${this.dir} is not written.`);
    try {
      await this.synced;
      if (this.failed) throw this.failed.error;
    } catch (e) {
      const target = this.failed?.target ?? this.targets[0];
      throw e instanceof InputError ? e : new InputError(`${target}: cannot write (${errorCode(e)}).`);
    } finally {
      await this.close();
    }
  }

  /** Drops the files (their temporaries removed): the result is written afterwards as without a sink. */
  async abandon(): Promise<void> {
    if (this.state === 'abandoned') return;
    await this.close();
    this.state = 'abandoned';
    for (const target of this.targets) this.outputs.forget(target);
  }

  /**
   * Stops the writeback and closes the files (a run's error path: its AtomicOutputs' discard removes them). Their
   * descriptors stay open until then: worker threads may write to them until the merge has answered.
   */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.state === 'abandoned') return;
    if (this.state !== 'done') this.state = 'closed';
    this.wake();
    await this.writeback;
    await this.synced?.catch(() => undefined);
    const handles = this.handles.splice(0);
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
    this.state = 'closed';
  }

  private async write(file: number, data: Uint32Array | Float32Array, from: number, to: number): Promise<void> {
    const view = new Uint8Array(data.buffer, data.byteOffset + 4 * from, 4 * (to - from));
    const at = this.starts[file] + 4 * from;
    try {
      for (let done = 0; done < view.length;) {
        done += (await this.handles[file].write(view, done, view.length - done, at + done)).bytesWritten;
      }
    } catch (e) {
      throw new InputError(`${this.targets[file]}: cannot write (${errorCode(e)}).`);
    }
  }

  private done(): void {
    if (this.state !== 'open') throw new Error(`NpyEdgeSink: ${this.dir} is ${this.state}, not open.`);
    this.state = 'done';
    this.wake();
    this.synced = this.writeback.then(async () => {
      await this.syncEach('sync');
      this.counts.fsyncs++;
    });
    this.synced.catch(() => undefined); // finish() reports it
  }

  /** fsync ('sync') or fdatasync of every file at once; the first failure is kept for finish() to report. */
  private async syncEach(how: 'sync' | 'datasync'): Promise<void> {
    await Promise.all(
      this.handles.map(async (h, f) => {
        try {
          await h[how]();
        } catch (error) {
          this.failed ??= { target: this.targets[f], error };
        }
      }),
    );
  }

  /** fdatasync of every file, again as soon as the last one returned (WRITEBACK_MS apart at least), while open. */
  private async writebackLoop(): Promise<void> {
    while (this.state === 'open') {
      const t0 = performance.now();
      await this.syncEach('datasync');
      this.counts.datasyncs++;
      const left = WRITEBACK_MS - (performance.now() - t0);
      if (left > 0 && this.state === 'open') {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }
}
