/**
 * CPU twin of the u16 box format (shaders/bvh/box.wgsl, which says how and why; layout.ts "Box formats"): the frame
 * of each axis, the outward-rounded cells of a box, and the whole u16 box array of a CPU BVH (its f32 boxes
 * quantised, then the frame), bit for bit as the GPU build writes it. Quantising a box's ends equals taking the
 * min / max of its points' cells (the cells are monotone in x), so quantising the CPU twin's tight f32 boxes gives
 * the GPU refit's words.
 *
 * Every step is exact in doubles as in f32 (products by powers of two, floors and ceilings of values within ±2^23);
 * ftz reproduces box_ftz (magnitudes below the smallest normal float read as 0).
 */
import { boxRecords, boxRecordWords } from './layout.js';

const F32_MIN_NORMAL = 2 ** -126;

/** box_ftz: x with magnitudes below 2^−126 set to 0 (the product rounded to f32 first, as the GPU computes it). */
function ftz(x: number): number {
  const f = Math.fround(x);
  return Math.abs(f) < F32_MIN_NORMAL ? 0 : f;
}

/** box_cells_fit: cells of 2^e hold [lo, hi] with the margins. */
function cellsFit(lo: number, hi: number, e: number): boolean {
  const s = 2 ** -e;
  const a = ftz(lo * s);
  const b = ftz(hi * s);
  return Math.abs(a) <= 2 ** 23 && Math.abs(b) <= 2 ** 23 && Math.ceil(b) - Math.floor(a) <= 65530;
}

/** The u16 frame of an axis whose points lie in [lo, hi] (box_frame_of): origin and cell = 2^e, as f32 values. */
export function boxFrameCpu(lo: number, hi: number): { origin: number; cell: number } {
  let bad = -127;
  let good = 112;
  while (good - bad > 1) {
    const mid = Math.trunc((good + bad) / 2);
    if (cellsFit(lo, hi, mid)) good = mid;
    else bad = mid;
  }
  const cell = 2 ** good;
  const base = Math.floor(ftz(lo * 2 ** -good)) - 1;
  return { origin: Math.fround(base * cell), cell };
}

/** box_quant_lo: x's lower cell, rounded down with one cell of margin. */
export function boxQuantLo(x: number, origin: number, cell: number): number {
  return Math.floor(ftz(x / cell)) - 1 - origin / cell;
}

/** box_quant_hi: x's upper cell, rounded up with one cell of margin. */
export function boxQuantHi(x: number, origin: number, cell: number): number {
  return Math.ceil(ftz(x / cell)) + 1 - origin / cell;
}

/** box_interval: the interval of cells [qlo, qhi] (exact in f32). */
export function boxDequant(q: number, origin: number, cell: number): number {
  return Math.fround(q * cell + origin);
}

/**
 * The u16 box array of an n-point BVH from its f32 boxes ((n − 1) records × 2·dim, lo then hi) and scene bounds:
 * boxRecords(n) records of dim words | hi | lo | (record 0 zero for n ≤ 1), then the origins and cells (f32 bits).
 */
export function quantiseBoxesCpu(
  boxes: Float32Array,
  n: number,
  dim: number,
  frame: { lo: Float32Array; hi: Float32Array },
): Uint32Array {
  const rw = boxRecordWords(dim, 'u16');
  const records = boxRecords(n);
  const out = new Uint32Array((records + 2) * rw);
  const bits = new Float32Array(out.buffer);
  const origin = new Float64Array(dim);
  const cell = new Float64Array(dim);
  for (let a = 0; a < dim; a++) {
    const f = n > 0 ? boxFrameCpu(frame.lo[a], frame.hi[a]) : { origin: 0, cell: 0 };
    origin[a] = f.origin;
    cell[a] = f.cell;
    bits[records * rw + a] = f.origin;
    bits[records * rw + dim + a] = f.cell;
  }
  for (let i = 0; i < n - 1; i++) {
    for (let a = 0; a < dim; a++) {
      const lo = boxQuantLo(boxes[i * 2 * dim + a], origin[a], cell[a]);
      const hi = boxQuantHi(boxes[i * 2 * dim + dim + a], origin[a], cell[a]);
      out[i * rw + a] = ((hi << 16) | lo) >>> 0;
    }
  }
  return out;
}
