/**
 * The shape of a point file from its first bytes, before the whole file is read: what the CLI needs to start the
 * GPU's work that depends only on n and the dimension (device creation, pipeline compilation: issue 17 §5) while the
 * file is still being read. Only formats whose header states the shape (.npy, ArborX's .bin) and headerless float32
 * files with --dim answer; everything else, and anything unexpected, answers null — the caller then simply does not
 * start early, and the real read reports any error in the file.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';

export interface PeekedShape {
  n: number;
  dim: number;
}

/** Bytes read for an .npy header (its header is at most 64 KiB in version 1; longer ones answer null). */
const NPY_HEAD_BYTES = 4096;

/**
 * The (n, dim) the file's header states, or null. `columns` (--columns) replaces the dimension by its count;
 * `dim` (--dim) reads .f32/.raw/.bin as headerless float32.
 */
export async function peekPointShape(
  path: string,
  options: { columns?: string[]; dim?: number } = {},
): Promise<PeekedShape | null> {
  try {
    const ext = extname(path).toLowerCase();
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const head = new Uint8Array(Math.min(size, NPY_HEAD_BYTES));
      await file.read(head, 0, head.length, 0);
      const shape = shapeOf(ext, head, size, options.dim);
      if (!shape || !Number.isSafeInteger(shape.n) || shape.n < 0 || shape.dim < 1) return null;
      return options.columns ? { n: shape.n, dim: options.columns.length } : shape;
    } finally {
      await file.close();
    }
  } catch {
    return null;
  }
}

function shapeOf(ext: string, head: Uint8Array, size: number, dim: number | undefined): PeekedShape | null {
  if (ext === '.npy') {
    if (head.length < 12 || head[0] !== 0x93 || String.fromCharCode(...head.subarray(1, 6)) !== 'NUMPY') return null;
    const text = new TextDecoder('latin1').decode(head.subarray(10));
    const shape = /'shape'\s*:\s*\(\s*(\d+)L?\s*,\s*(\d+)?L?\s*,?\s*\)/.exec(text);
    if (!shape) return null;
    return { n: Number(shape[1]), dim: shape[2] === undefined ? 1 : Number(shape[2]) };
  }
  if (dim !== undefined && ['.f32', '.raw', '.bin'].includes(ext)) return { n: Math.floor(size / (4 * dim)), dim };
  if (ext === '.bin' && head.length >= 8) {
    const view = new DataView(head.buffer, head.byteOffset, 8);
    const n = view.getInt32(0, true);
    const d = view.getInt32(4, true);
    return n >= 0 && d >= 1 && 8 + 4 * n * d === size ? { n, dim: d } : null;
  }
  return null;
}
