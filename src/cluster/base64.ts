/**
 * Typed arrays ⇄ base64 text for model files: exact (bit for bit, ∞ and NaN included) and about a third larger
 * than the bytes, where JSON number lists would be 3–4× larger and lose non-finite values. Portable (no Buffer,
 * no atob): Node and browsers alike. Bytes are little-endian, as on every platform WebGPU runs on.
 */
import { InputError } from '../errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** Base64 of the bytes of a typed array view. */
export function bytesToBase64(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const len = bytes.length;
  const out = new Uint8Array(4 * Math.ceil(len / 3));
  const code = new Uint8Array(64);
  for (let i = 0; i < 64; i++) code[i] = ALPHABET.charCodeAt(i);
  const EQ = 61;
  let o = 0;
  for (let i = 0; i < len; i += 3) {
    const b0 = bytes[i];
    const b1 = i + 1 < len ? bytes[i + 1] : 0;
    const b2 = i + 2 < len ? bytes[i + 2] : 0;
    out[o++] = code[b0 >> 2];
    out[o++] = code[((b0 & 3) << 4) | (b1 >> 4)];
    out[o++] = i + 1 < len ? code[((b1 & 15) << 2) | (b2 >> 6)] : EQ;
    out[o++] = i + 2 < len ? code[b2 & 63] : EQ;
  }
  return new TextDecoder().decode(out);
}

/** The bytes encoded by `text`; `what` names the field in error messages. */
export function base64ToBytes(text: string, what: string): Uint8Array {
  if (typeof text !== 'string' || text.length % 4 !== 0) {
    throw new InputError(
      `Expected ${what} to be base64 text (length a multiple of 4), got length ${String(text?.length)}.`,
    );
  }
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const c0 = DECODE[text.charCodeAt(i)] ?? -1;
    const c1 = DECODE[text.charCodeAt(i + 1)] ?? -1;
    const c2 = text[i + 2] === '=' ? 0 : (DECODE[text.charCodeAt(i + 2)] ?? -1);
    const c3 = text[i + 3] === '=' ? 0 : (DECODE[text.charCodeAt(i + 3)] ?? -1);
    if (c0 < 0 || c1 < 0 || c2 < 0 || c3 < 0) throw new InputError(`Invalid base64 in ${what} near character ${i}.`);
    const v = (c0 << 18) | (c1 << 12) | (c2 << 6) | c3;
    if (o < out.length) out[o++] = v >> 16;
    if (o < out.length) out[o++] = (v >> 8) & 255;
    if (o < out.length) out[o++] = v & 255;
  }
  return out;
}
