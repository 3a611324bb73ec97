/**
 * Where a `treeline worker` (worker.ts) reads a run's stored objects: partitions and catalogues, each read once a run
 * (ObjectCache), from the coordinator's same-host folder where the worker sees it (sees) or from the run's object
 * store.
 */
import type { ObjectStore } from '@nats-io/obj';
import { getMessage } from './nats.js';
import { partitionObject } from './nats.tasks.js';
import { listFiles, partitionFile, readMessageFile, sameFolder, type LocalLink } from './nats.local.js';
import type { PartitionData, TaskMessage } from './types.js';
/**
 * Where a worker reads a run's partitions: the object store, and the coordinator's same-host folder when the
 * worker sees it (`local`); `ask(p)` tells the coordinator that partition p is wanted in the store (a worker that
 * does not see the folder, where the coordinator wrote the partitions there alone; null for a run without one).
 */
export interface PartitionSource {
  os: ObjectStore;
  local: LocalLink | null;
  ask: ((p: number) => Promise<void>) | null;
}

/** The stored objects (partitions, a catalogue) of the newest run this worker served, each read once. */
export class ObjectCache {
  private run = '';
  private objects = new Map<string, Promise<TaskMessage>>();
  private parts = new Map<number, Promise<PartitionData>>();

  /** `run`: the run id and its epoch (TaskHeader). */
  private use(run: string): void {
    if (run !== this.run) {
      this.run = run;
      this.objects.clear();
      this.parts.clear();
    }
  }

  object(run: string, os: ObjectStore, name: string): Promise<TaskMessage> {
    this.use(run);
    let m = this.objects.get(name);
    if (!m) {
      m = getMessage(os, name).then((msg) => {
        if (msg === null) throw new Error(`run ${run} has no object '${name}' in its object store.`);
        return msg;
      });
      m.catch(() => this.objects.delete(name));
      this.objects.set(name, m);
    }
    return m;
  }

  /**
   * Reads every partition stored so far that is not read or being read, one after another (errors dropped), then
   * looks again every PREFETCH_LOOK_MS while `more()` (the worker is in a pair task): partitions stored after the
   * first look — the coordinator uploads them one after another beside the first pairs — are read while this pair
   * computes instead of on demand by the next one (session 12, H100 x2 at 2·10^8: a worker's first look found two
   * partitions, and its second pair waited ~2.3 s for its partner's read).
   */
  prefetch(run: string, source: PartitionSource, more: () => boolean = () => false): void {
    this.use(run);
    if (this.prefetching) return;
    this.prefetching = true;
    const next = async (): Promise<void> => {
      for (;;) {
        const names = source.local
          ? await listFiles(source.local.dir)
          : (await source.os.list()).map((info) => info.name);
        for (const name of names.filter((x) => /^partition\.\d+$/.test(x))) {
          if (this.run !== run) return;
          const p = Number(name.slice('partition.'.length));
          if (!this.parts.has(p)) await this.partition(run, source, p).catch(() => undefined);
        }
        if (this.run !== run || !more()) return;
        await new Promise((resolve) => setTimeout(resolve, PREFETCH_LOOK_MS));
      }
    };
    next()
      .catch(() => undefined)
      .finally(() => (this.prefetching = false));
  }

  private prefetching = false;

  partition(run: string, source: PartitionSource, p: number): Promise<PartitionData> {
    this.use(run);
    let part = this.parts.get(p);
    if (!part) {
      // Read once into the partition's arrays: the object's message is not kept beside them. From the same-host
      // folder where this worker sees it and the file is there (a partition the coordinator could not write there
      // is in the store), else from the store, asking the coordinator for it where it is not there yet. In shared
      // memory: a pair's union is merged on the host's threads (tasks.threads.ts unionThreaded).
      const shared = { shared: true };
      const file = source.local ? readMessageFile(source.local.dir, partitionFile(p), shared) : Promise.resolve(null);
      part = file.then(async (m) => {
        m ??= await getMessage(source.os, partitionObject(p), shared);
        if (m === null && source.ask) {
          await source.ask(p);
          m = await getMessage(source.os, partitionObject(p), shared);
        }
        if (m === null) throw new Error(`run ${run} has no partition ${p} in its object store.`);
        const { points, ids } = m.arrays;
        if (!(points instanceof Float32Array) || !(ids instanceof Uint32Array)) {
          throw new Error(`run ${run}'s partition ${p} lacks its points (Float32Array) or ids (Uint32Array).`);
        }
        return { id: p, dim: Number(m.meta.dim), points, ids };
      });
      part.catch(() => this.parts.delete(p));
      this.parts.set(p, part);
    }
    return part;
  }
}

/** How often a worker in a pair task looks for partitions stored since (ObjectCache.prefetch). */
const PREFETCH_LOOK_MS = 250;

/**
 * Whether this worker sees each coordinator's folder (by folder and token). A yes is kept; a no is looked at again by
 * the next task (one small read), so that a passing failure (a full file table) does not send the rest of the run
 * through the object store.
 */
const seen = new Map<string, Promise<boolean>>();
export function sees(link: LocalLink): Promise<boolean> {
  const key = `${link.dir}\n${link.token}`;
  let s = seen.get(key);
  if (!s) {
    s = sameFolder(link);
    seen.set(key, s);
    s.then((yes) => yes || seen.delete(key));
  }
  return s;
}
