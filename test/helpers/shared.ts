/** A copy of `a` over a SharedArrayBuffer (what the host's worker threads write into), at least 4 bytes long. */
export function sharedOf<T extends Uint32Array | Float32Array>(a: T): T {
  const out = new (a.constructor as new (b: SharedArrayBuffer, o: number, l: number) => T)(
    new SharedArrayBuffer(Math.max(a.byteLength, 4)),
    0,
    a.length,
  );
  out.set(a);
  return out;
}
