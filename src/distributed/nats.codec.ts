/**
 * The bytes of one task message (a JSON-able `meta` beside named typed arrays) on NATS: task bodies on the work
 * queue, results, and point partitions in the object store (issue 20, §The engine).
 *
 *   | 'TLT1' | header bytes h (u32 LE) | header: UTF-8 JSON, zero-padded to 8 bytes | array 0 | pad | array 1 | pad | …
 *
 *   header = { meta, arrays: [{ name, type, length }] }   (length in elements; each array starts 8-byte aligned)
 *
 * Why not Arrow IPC (the issue names it): a message's arrays have different lengths (a partition's n × dim
 * coordinates beside its n ids, a handful of per-component values beside per-point ones), and an Arrow record batch
 * holds equal-length columns, so each array would be its own table stream with its own schema message — more bytes
 * and more code for the same thing. This layout is read back with one copy into aligned memory and typed-array views
 * on it, never element by element, and a reader in any language needs only the header's JSON. Little-endian, as
 * every machine treeline runs on (typed arrays use the host's order; `decodeTaskMessage` refuses a big-endian host).
 */
import type { TaskArray, TaskMessage } from './types.js';

const MAGIC = [0x54, 0x4c, 0x54, 0x31]; // 'TLT1'

/**
 * The largest message a reader takes whole: its bytes are one Uint8Array, and Node 20's typed arrays stop at 2^32
 * elements (a partition of 2.68·10^8 3D points and their ids; the coordinator refuses larger partitions up front).
 */
export const MAX_MESSAGE_BYTES = 2 ** 32 - 1;

/** The typed-array kinds a message may carry, by name. */
const ARRAY_TYPES = {
  f32: Float32Array,
  f64: Float64Array,
  u32: Uint32Array,
  i32: Int32Array,
  u8: Uint8Array,
} as const;
type ArrayTypeName = keyof typeof ARRAY_TYPES;

interface Header {
  meta: unknown;
  arrays: { name: string; type: ArrayTypeName; length: number }[];
}

function typeName(a: TaskArray, name: string): ArrayTypeName {
  for (const [k, C] of Object.entries(ARRAY_TYPES)) if (a instanceof C) return k as ArrayTypeName;
  throw new TypeError(
    `Expected task array '${name}' to be a Float32Array, Float64Array, Uint32Array, Int32Array or Uint8Array, got ` +
      `${(a as object)?.constructor?.name ?? typeof a}.`,
  );
}

/** n rounded up to a multiple of 8 (arithmetic, not `& ~7`: an array of 2^31 bytes or more, 32-bit operators wrap). */
const pad8 = (n: number): number => Math.ceil(n / 8) * 8;

/** The header's JSON bytes and the message's size in bytes (header, then each array 8-byte aligned). */
function layout(msg: TaskMessage): { json: Uint8Array; entries: [string, TaskArray][]; size: number } {
  const entries = Object.entries(msg.arrays ?? {});
  const header: Header = {
    meta: msg.meta ?? null,
    arrays: entries.map(([name, a]) => ({ name, type: typeName(a, name), length: a.length })),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  let size = 8 + pad8(json.length);
  for (const [, a] of entries) size += pad8(a.byteLength);
  return { json, entries, size };
}

/**
 * encodeTaskMessage(msg)'s bytes as pieces at their offsets, without the copy into one array: the head (magic, header
 * length, header, padding) at 0, then each array's bytes (a view on it) where encodeTaskMessage puts them. The gaps
 * between pieces are the arrays' zero padding. For writers that write the pieces straight to a file (nats.local.ts).
 */
export function encodedPieces(msg: TaskMessage): { size: number; pieces: { at: number; bytes: Uint8Array }[] } {
  const { json, entries, size } = layout(msg);
  const head = new Uint8Array(8 + pad8(json.length));
  head.set(MAGIC, 0);
  new DataView(head.buffer).setUint32(4, json.length, true);
  head.set(json, 8);
  const pieces: { at: number; bytes: Uint8Array }[] = [{ at: 0, bytes: head }];
  let at = head.length;
  for (const [, a] of entries) {
    pieces.push({ at, bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) });
    at += pad8(a.byteLength);
  }
  return { size, pieces };
}

/** The size of encodeTaskMessage(msg) in bytes. */
export function encodedSize(msg: TaskMessage): number {
  return layout(msg).size;
}

/**
 * The message as one byte array (header, then each array 8-byte aligned): a new one, or the first bytes of `into`
 * when it is large enough (a buffer used again: nats.ts putMessage, for partitions and results of hundreds of MB).
 */
export function encodeTaskMessage(msg: TaskMessage, into?: Uint8Array): Uint8Array {
  const { json, entries, size } = layout(msg);
  const out = into !== undefined && into.length >= size ? into.subarray(0, size) : new Uint8Array(size);
  out.set(MAGIC, 0);
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(4, json.length, true);
  out.set(json, 8);
  let at = 8 + pad8(json.length);
  out.fill(0, 8 + json.length, at);
  for (const [, a] of entries) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    out.fill(0, at + a.byteLength, at + pad8(a.byteLength));
    at += pad8(a.byteLength);
  }
  return out;
}

/** The message back from `encodeTaskMessage`'s bytes (the arrays are views on one aligned copy of `bytes`). */
export function decodeTaskMessage(bytes: Uint8Array): TaskMessage {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
    throw new Error('treeline: task messages are little-endian; this host is big-endian.');
  }
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== MAGIC[i]) {
      throw new Error(
        `Expected a treeline task message (starting 'TLT1'), got ${bytes.length} bytes starting ` +
          `[${[...bytes.subarray(0, 4)].join(', ')}].`,
      );
    }
  }
  // One copy into fresh (8-byte aligned) memory: NATS hands out views into its read buffers at any offset.
  // (Uint8Array's own slice: a Node Buffer's slice is a view, not a copy.)
  const own = bytes.byteOffset % 8 === 0 ? bytes : Uint8Array.prototype.slice.call(bytes);
  const view = new DataView(own.buffer, own.byteOffset, own.byteLength);
  const h = view.getUint32(4, true);
  if (8 + h > own.length) throw new Error(`A task message's header claims ${h} bytes; the message has ${own.length}.`);
  const header = JSON.parse(new TextDecoder().decode(own.subarray(8, 8 + h))) as Header;
  const arrays: Record<string, TaskArray> = {};
  let at = own.byteOffset + 8 + pad8(h);
  for (const { name, type, length } of header.arrays) {
    const C = ARRAY_TYPES[type];
    if (!C) throw new Error(`A task message's array '${name}' has unknown type '${type}'.`);
    const bytesOf = length * C.BYTES_PER_ELEMENT;
    if (at - own.byteOffset + bytesOf > own.length) {
      throw new Error(`A task message's array '${name}' (${length} × ${type}) runs past its ${own.length} bytes.`);
    }
    arrays[name] = new C(own.buffer as ArrayBuffer, at, length);
    at += pad8(bytesOf);
  }
  return { meta: header.meta as TaskMessage['meta'], arrays };
}

/** The message's meta alone (its header's JSON), without touching the arrays. */
export function decodeTaskMeta(bytes: Uint8Array): TaskMessage['meta'] {
  const h = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  return (JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + h))) as Header).meta as TaskMessage['meta'];
}
