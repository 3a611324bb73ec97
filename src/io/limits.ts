/**
 * Sizes that come from a header (NPY shape, FITS NAXIS2, Parquet num_rows, HDF5 shape, `generate -n`) are checked
 * here before anything is allocated from them (issue 15, §4.8): a crafted header gave a RangeError with a stack,
 * or an allocation the file could never fill. Every message names the file (or option), the field and the value;
 * the readers also compare a claimed size with the bytes the file holds, where the format makes that a bound.
 */
import { InputError } from '../errors.js';

/**
 * Largest coordinate magnitude accepted: extents (hi − lo) and scaled cells stay finite in f32 (src/bvh/layout.ts
 * re-exports it for the BVH and emst's validation). Host arrays are checked; GPU buffers are the caller's
 * responsibility.
 */
export const MAX_COORDINATE = 1e38;

/** The most float32 values one point table may hold: the longest typed array Node allocates (2^32 − 1). */
export const MAX_TABLE_VALUES = 2 ** 32 - 1;

/**
 * Checks a header's row count `n` (and coordinates per row `dim`) before `n · dim` values are allocated:
 * `where` names the file or option, `field` the header field as the format spells it (`NAXIS2`, `num_rows`…).
 */
export function checkTableSize(n: number, dim: number, where: string, field: string): void {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new InputError(`${where}: ${field} = ${n}, expected a non-negative integer.`);
  if (n * dim > MAX_TABLE_VALUES) {
    throw new InputError(
      `${where}: ${field} = ${n} rows × ${dim} columns = ${n * dim} values exceeds the ${MAX_TABLE_VALUES} (2^32 − 1) a point table can hold.`,
    );
  }
}

/**
 * A zeroed Float32Array of `count` values; where the machine cannot give the memory, an InputError naming `what`
 * and the size instead of V8's bare "RangeError: Array buffer allocation failed".
 */
export function allocFloat32(count: number, what: string, shared = false): Float32Array {
  try {
    return shared ? new Float32Array(new SharedArrayBuffer(4 * count)) : new Float32Array(count);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new InputError(
      `${what}: cannot allocate ${count} float32 values (${((count * 4) / 2 ** 30).toFixed(1)} GiB): not enough memory.`,
    );
  }
}
