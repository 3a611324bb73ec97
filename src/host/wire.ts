/**
 * Typed arrays over SharedArrayBuffers cross to and from worker threads as (buffer, byteOffset, length) and are
 * rebuilt on the other side, instead of through the structured clone of the view itself.
 *
 * Why (issue 19): Node 20's structured clone of a view keeps its byteOffset and length modulo 2^32 bytes — a
 * Float32Array of 1.2·10^9 values (4·10^8 3D points, 4.8·10^9 bytes) arrived in a worker with 126,258,176 values
 * (4.8·10^9 − 2^32 bytes), a view at byte 4.4·10^9 arrived at byte 105,032,704, and some views that end past 2^32
 * never arrived (the worker answered nothing). The SharedArrayBuffer itself arrives whole. So the bench's threaded
 * generation left ~83 % of 4·10^8 points at (0, 0, 0) — writes past a view's end are dropped silently — and the GPU
 * EMST of those hundreds of millions of equal points ran for minutes (session 13's "stall" at 4·10^8 and 6·10^8).
 *
 * Every view over a SharedArrayBuffer is encoded, whatever its size: rebuilding a view costs nothing, and one rule is
 * easier to trust than a threshold. Views over ordinary ArrayBuffers (copied by the clone) and everything else pass
 * as they are. Plain objects and arrays (up to MAX_WALKED elements) are walked a few levels deep (jobs are shallow);
 * the caller's message is never changed (a copy is made where something is encoded).
 */

/** The marker key of an encoded view. */
const VIEW = '__treelineSharedView';

const CONSTRUCTORS = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as const;
type ViewName = keyof typeof CONSTRUCTORS;

interface EncodedView {
  [VIEW]: ViewName;
  buffer: SharedArrayBuffer;
  byteOffset: number;
  length: number;
}

/** How deep toWire and fromWire look into plain objects and arrays. */
const DEPTH = 6;
/** Arrays longer than this are passed as they are (jobs hold short lists of views; a long list of numbers is data). */
const MAX_WALKED = 1024;

const isShared = (b: ArrayBufferLike): b is SharedArrayBuffer =>
  typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer;

function isPlain(o: object): boolean {
  const proto = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

/** Applies `f` to each value of a plain object or array, copying the container only where a value changes. */
function mapValues(o: object, f: (v: unknown) => unknown): object {
  if (Array.isArray(o)) {
    if (o.length > MAX_WALKED) return o;
    let out: unknown[] | null = null;
    o.forEach((v, i) => {
      const w = f(v);
      if (w !== v) (out ??= o.slice())[i] = w;
    });
    return out ?? o;
  }
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(o)) {
    const w = f(v);
    if (w !== v) (out ??= { ...(o as Record<string, unknown>) })[k] = w;
  }
  return out ?? o;
}

/** `message` with every typed array over a SharedArrayBuffer replaced by its (buffer, byteOffset, length). */
export function toWire<T>(message: T, depth = 0): T {
  if (ArrayBuffer.isView(message)) {
    const view = message as unknown as { buffer: ArrayBufferLike; byteOffset: number; length: number };
    const name = message.constructor.name as ViewName;
    if (!isShared(view.buffer) || !(name in CONSTRUCTORS)) return message;
    const encoded: EncodedView = {
      [VIEW]: name,
      buffer: view.buffer,
      byteOffset: view.byteOffset,
      length: view.length,
    };
    return encoded as T;
  }
  if (
    message === null ||
    typeof message !== 'object' ||
    depth >= DEPTH ||
    !(Array.isArray(message) || isPlain(message))
  )
    return message;
  return mapValues(message, (v) => toWire(v, depth + 1)) as T;
}

/** The inverse of toWire: encoded views rebuilt over their SharedArrayBuffers. */
export function fromWire<T>(message: T, depth = 0): T {
  if (message === null || typeof message !== 'object' || ArrayBuffer.isView(message) || depth >= DEPTH) return message;
  const m = message as unknown as Partial<EncodedView>;
  const name = m[VIEW];
  if (name !== undefined && name in CONSTRUCTORS && m.buffer !== undefined) {
    const View = CONSTRUCTORS[name] as unknown as new (b: ArrayBufferLike, offset?: number, length?: number) => T;
    return new View(m.buffer, m.byteOffset, m.length);
  }
  if (!(Array.isArray(message) || isPlain(message))) return message;
  return mapValues(message, (v) => fromWire(v, depth + 1)) as T;
}
