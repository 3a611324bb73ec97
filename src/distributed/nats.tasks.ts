/**
 * What travels on the task queue and what comes back (issue 20): the envelope around a TaskMessage, shared by the
 * coordinator (coordinator.ts) and the workers (worker.ts).
 *
 * A task on the stream is one encoded TaskMessage (nats.codec.ts) whose meta is { task: TaskHeader, meta } and whose
 * arrays are the task's own; when that is over the server's payload limit the whole TaskMessage goes to the run's
 * object store as `task.<id>` and the stream message carries the header alone (`stored: true`). The result is always
 * stored, as `result.<id>`: { reply: meta } with the reply's arrays, or { error } when the task failed for good.
 *
 * A task's id is its content's hash (kind, partition, meta, arrays): the same request — after a coordinator restart,
 * or asked twice — is the same task, whose stored result answers it again (resume, coordinator.ts).
 */
import type { LocalLink } from './nats.local.js';
import type { TaskArray, TaskMessage } from './types.js';

/** Which run, which task, and where its body is. */
export interface TaskHeader {
  /** The run id (coordinator.ts): names the object-store bucket the worker reads and writes. */
  run: string;
  /**
   * The run's incarnation (its input's fingerprint, coordinator.ts): a run id used again on other points is another
   * epoch, so a worker never serves it partitions cached for the old one.
   */
  epoch?: string;
  /** The task's id within the run (contentId below). */
  id: string;
  /** A PARTITION_TASKS kind (with `partition`) or a BATCH_TASKS kind (without). */
  kind: string;
  /** The partition whose points the task needs. */
  partition?: number;
  /** The body is in the object store as `task.<id>`. */
  stored?: boolean;
  /** The coordinator's folder for workers on its host (nats.local.ts): partitions and large results as files. */
  local?: LocalLink;
}

export const taskObject = (id: string): string => `task.${id}`;
export const resultObject = (id: string): string => `result.${id}`;
export const partitionObject = (p: number): string => `partition.${p}`;

/** A stored result: the reply, or the error that ended the task. */
export type TaskOutcome = { reply: TaskMessage } | { error: string };

export function outcomeMessage(o: TaskOutcome): TaskMessage {
  return 'error' in o
    ? { meta: { error: o.error }, arrays: {} }
    : { meta: { reply: o.reply.meta }, arrays: o.reply.arrays };
}

export function messageOutcome(m: TaskMessage): TaskOutcome {
  if (typeof m.meta.error === 'string') return { error: m.meta.error };
  return { reply: { meta: (m.meta.reply ?? {}) as TaskMessage['meta'], arrays: m.arrays } };
}

/**
 * 64 bits of a task's content as 16 hex digits: two 32-bit FNV-1a style hashes over `salt` (the run's epoch), the
 * kind, the partition, the meta's JSON and every array's name, type and bytes (read as 32-bit words where aligned).
 */
export function contentId(kind: string, partition: number | undefined, msg: TaskMessage, salt = ''): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const mixWord = (w: number): void => {
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul(b ^ w, 0x5bd1e995) ^ (b >>> 15);
  };
  const mixString = (s: string): void => {
    for (let i = 0; i < s.length; i++) mixWord(s.charCodeAt(i));
    mixWord(0xffff_ffff);
  };
  mixString(salt);
  mixString(kind);
  mixWord(partition ?? -1);
  mixString(JSON.stringify(msg.meta ?? null));
  for (const [name, arr] of Object.entries(msg.arrays ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const array = arr as TaskArray;
    mixString(`${name}:${array.constructor.name}:${array.length}`);
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    const words = bytes.byteOffset % 4 === 0 ? Math.floor(bytes.length / 4) : 0;
    if (words > 0) {
      const w = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
      for (let i = 0; i < words; i++) mixWord(w[i]);
    }
    for (let i = words * 4; i < bytes.length; i++) mixWord(bytes[i]);
  }
  const hex = (x: number): string => (x >>> 0).toString(16).padStart(8, '0');
  return hex(a) + hex(b);
}
