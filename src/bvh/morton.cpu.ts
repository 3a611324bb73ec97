/**
 * CPU twin of the GPU bounds and Morton kernels (`shaders/bvh/bounds.wgsl`, `shaders/bvh/morton.wgsl`): scene
 * bounds, the per-axis quantisation scale, and 64-bit Morton codes, bit-identical to the GPU's.
 *
 * Quantisation uses correctly rounded operations only, so both backends agree exactly:
 *   scale[a] = RN_f32(2^bits / (hi[a] − lo[a]))   (0 when the extent is 0; clamped to [2^−126, F32_MAX] else 0)
 *   cell     = min(floor(RN_f32(RN_f32(x − lo[a]) · scale[a])), maxCell(bits))
 * The GPU computes the scale with an exact integer long division (WGSL's `/` is not correctly rounded); here
 * `Math.fround(2 ** bits / extent)` is correctly rounded, because rounding a double quotient to float is
 * innocuous (53 ≥ 2·24 + 2, Figueroa 1995). Subnormal coordinates may be flushed to zero by a GPU; codes are then
 * allowed to differ (boxes never do: they are min/max of bit patterns).
 */
import { bitsPerAxis, F32_MAX, maxCell } from './layout.js';
import { maxF, minF, orderF32 } from './floatorder.js';

/** Scene bounds and the quantisation frame of one build. */
export interface SceneFrame {
  /** d per-axis minima. */
  lo: Float32Array;
  /** d per-axis maxima. */
  hi: Float32Array;
  /** d per-axis scales: RN_f32(2^bits / (hi − lo)), see above. */
  scale: Float32Array;
}

/** Per-axis min and max of n points (−0 below +0), and the quantisation scales. */
export function sceneFrameCpu(points: Float32Array, n: number, dim: number): SceneFrame {
  const lo = new Float32Array(dim).fill(Infinity);
  const hi = new Float32Array(dim).fill(-Infinity);
  for (let a = 0; a < dim; a++) {
    let mn = Infinity;
    let mx = -Infinity;
    for (let i = 0, o = a; i < n; i++, o += dim) {
      const x = points[o];
      mn = minF(mn, x);
      mx = maxF(mx, x);
    }
    lo[a] = mn;
    hi[a] = mx;
  }
  const bits = bitsPerAxis(dim);
  const scale = new Float32Array(dim);
  if (n > 0) for (let a = 0; a < dim; a++) scale[a] = quantScale(bits, Math.fround(hi[a] - lo[a]));
  return { lo, hi, scale };
}

/** RN_f32(2^bits / extent), 0 for a zero extent or a quotient below 2^−126, F32_MAX above the float range. */
export function quantScale(bits: number, extent: number): number {
  if (!(extent > 0)) return 0;
  const q = Math.fround(2 ** bits / extent);
  if (q > F32_MAX) return F32_MAX;
  if (q < 2 ** -126) return 0;
  return q;
}

/**
 * Morton codes of n points as (low, high) u32 pairs: codes[2i] low word, codes[2i + 1] high word. `into`: where to
 * write them (at least 2n words; every word of the first 2n is written), else a new array.
 */
export function mortonCodesCpu(
  points: Float32Array,
  n: number,
  dim: number,
  frame: SceneFrame,
  into?: Uint32Array,
): Uint32Array {
  const codes = into ?? new Uint32Array(2 * n);
  if (dim === 1) {
    for (let i = 0; i < n; i++) {
      codes[2 * i] = orderF32(points[i]);
      codes[2 * i + 1] = 0;
    }
    return codes;
  }
  const bits = bitsPerAxis(dim);
  const top = maxCell(bits);
  const cells = new Float64Array(dim);
  const spread = dim <= 3 ? spreadTable(dim) : null;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < dim; a++) {
      const t = Math.fround(Math.fround(points[i * dim + a] - frame.lo[a]) * frame.scale[a]);
      cells[a] = Math.min(Math.floor(t), top);
    }
    let lo = 0;
    let hi = 0;
    if (spread) {
      // Bytes of each cell spread by a table: byte b of axis a lands at code bit 8·b·dim + (dim − 1 − a).
      for (let a = 0; a < dim; a++) {
        const c = cells[a] >>> 0;
        for (let b = 0; b < 4 && 8 * b < bits; b++) {
          const s = spread[(c >>> (8 * b)) & 0xff];
          const p = 8 * b * dim + (dim - 1 - a);
          if (p < 32) {
            lo |= s << p;
            if (p > 0 && p + 8 * dim - 1 > 31) hi |= s >>> (32 - p);
          } else hi |= s << (p - 32);
        }
      }
    } else {
      for (let a = 0; a < dim; a++) {
        const c = cells[a] >>> 0;
        for (let t = 0; t < bits; t++) {
          if (((c >>> t) & 1) === 0) continue;
          const p = t * dim + (dim - 1 - a);
          if (p < 32) lo |= 1 << p;
          else hi |= 1 << (p - 32);
        }
      }
    }
    codes[2 * i] = lo >>> 0;
    codes[2 * i + 1] = hi >>> 0;
  }
  return codes;
}

/**
 * The top 16 bits of mortonCodesCpu's codes of points start … end − 1 (bits [codeBits − 16, codeBits) of each code:
 * the partitioned EMST's 16-bit digits, src/distributed/partition.buckets.ts) into out[start …], for dim 2 and 3,
 * straight from each axis's top cell bits — the same cells, so the same digits — without the whole code (3D: x's
 * cell bits 15–20 land at digit bits 0, 3, …, 15, y's and z's bits 16–20 at 2, 5, … and 1, 4, …; 2D: bits 24–31 of
 * each axis). `counts[d]` (65536) counts digit d. False (nothing written) for other dims.
 */
export function mortonDigitsCpu(
  points: Float32Array,
  start: number,
  end: number,
  dim: number,
  frame: SceneFrame,
  out: Uint16Array,
  counts: Uint32Array,
): boolean {
  if (dim !== 2 && dim !== 3) return false;
  const bits = bitsPerAxis(dim);
  const top = maxCell(bits);
  const shift = dim * bits - 16;
  const spread = spreadTable(dim);
  // Per axis: its lowest cell bit in the digit (t0) and where that bit lands (t0·dim + dim − 1 − a − shift).
  const t0 = new Int32Array(dim);
  const at = new Int32Array(dim);
  for (let a = 0; a < dim; a++) {
    t0[a] = Math.ceil((shift - (dim - 1 - a)) / dim);
    at[a] = t0[a] * dim + (dim - 1 - a) - shift;
  }
  const lo = frame.lo;
  const scale = frame.scale;
  if (dim === 3) {
    // Unrolled (t0 = 15, 16, 16; bits land at 0, 2, 1).
    const [l0, l1, l2] = lo;
    const [s0, s1, s2] = scale;
    const [tx, ty, tz] = t0;
    const [ax, ay, az] = at;
    for (let i = start, o = 3 * start; i < end; i++, o += 3) {
      const x = Math.min(Math.floor(Math.fround(Math.fround(points[o] - l0) * s0)), top) >>> 0;
      const y = Math.min(Math.floor(Math.fround(Math.fround(points[o + 1] - l1) * s1)), top) >>> 0;
      const z = Math.min(Math.floor(Math.fround(Math.fround(points[o + 2] - l2) * s2)), top) >>> 0;
      const d = (spread[x >>> tx] << ax) | (spread[y >>> ty] << ay) | (spread[z >>> tz] << az);
      out[i] = d;
      counts[d]++;
    }
    return true;
  }
  for (let i = start; i < end; i++) {
    let d = 0;
    for (let a = 0; a < dim; a++) {
      const t = Math.fround(Math.fround(points[i * dim + a] - lo[a]) * scale[a]);
      const c = Math.min(Math.floor(t), top) >>> 0;
      d |= spread[c >>> t0[a]] << at[a];
    }
    out[i] = d;
    counts[d & 0xffff]++;
  }
  return true;
}

/** spread[x]: bit t of the byte x moved to bit t·dim (dim ≤ 3: fits in 22 bits). */
const spreadTables = new Map<number, Uint32Array>();
function spreadTable(dim: number): Uint32Array {
  let t = spreadTables.get(dim);
  if (!t) {
    t = new Uint32Array(256);
    for (let x = 0; x < 256; x++) for (let b = 0; b < 8; b++) if ((x >>> b) & 1) t[x] |= 1 << (b * dim);
    spreadTables.set(dim, t);
  }
  return t;
}
