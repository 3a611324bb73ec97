/**
 * The linear BVH's data layout, shared by the GPU build (`lbvh.ts`), its CPU twin (`lbvh.cpu.ts`) and every
 * traversal (k-NN here, Borůvka in `emst/`). Karras 2012 numbering, with one extra "header" record.
 *
 * Nodes. n leaves, n − 1 internal nodes. A node is named by its *unified index*:
 *   internal node i (0 ≤ i < n − 1)  →  i;      leaf j (0 ≤ j < n)  →  n − 1 + j.
 * The root is unified index 0 for every n ≥ 1 (internal node 0, or leaf 0 when n = 1). Leaf j is the j-th point
 * in Morton order; `order[j]` is its original index.
 *
 * Records. Record r (0 ≤ r < n) of `links` describes the two children of internal node r; record n − 1 is the
 * *header*, whose left child is the root and whose right child is NONE, so every node (the root included) has a
 * parent record and a traversal starts at the header. A record is | left | right | minIndex(left) | minIndex(right) |,
 * on the GPU in two arrays of the same n records (issue 19's memory: the traversals of the EMST read only the first):
 *
 *   links (vec2u per record, n records):  | left child | right child |
 *   mins  (vec2u per record, n records):  | minIndex(left) | minIndex(right) |     (bvh::minIndex)
 *
 * An internal child's minIndex is the smallest original index among its leaves (for exact tie-breaking by index,
 * and so that all-duplicate inputs are not quadratic); a leaf's is its original index. The child whose parent word
 * (Parents, below) is ps has its minIndex at mins word ps. Only the k-NN reads mins (knn/knn.ts), so an EMST lends
 * Borůvka's edge buffer for them (emst/pipeline.ts): links take 8 bytes a point at the EMST's peak, where the one
 * vec4u array took 16. The CPU twin keeps the logical record, four u32 (lbvh.cpu.ts); linkWords, minIndexWords and
 * joinLinks below convert.
 *
 * Boxes (f32, 2·d per internal node, n − 1 records; no header record): internal node i's own tight box.
 *
 *   boxes:  | lo(node i) d | hi(node i) d |
 *
 * A leaf has no box: its box would be its point (lo = hi), so a traversal reading child c takes boxes[c·2d …] when
 * c is internal and the point (sortedPoints, Morton position c − (n − 1)) when c is a leaf. The header has no box
 * either: its left child, the root, is internal node 0 (box boxes[0 …]) when n ≥ 2 and leaf 0 when n = 1. When
 * both children of a node are internal they are γ and γ + 1 (Karras), so their boxes are adjacent: one contiguous
 * span of 4·d words, as when both lived in the parent's record. 8·d bytes per point (24 in 3D; the children-in-
 * the-parent layout, with leaf boxes, took 16·d). The GPU buffer keeps at least one record (no zero-length
 * buffers); the CPU twin's array is exactly (n − 1)·2·d long (empty for n ≤ 1).
 *
 * Ranges: [first leaf, last leaf] of internal node i, in Morton positions. Karras 2012: leaf position i is always
 * one end of internal node i's range, so the GPU keeps only the other end e (one u32 a node; shaders/bvh/range.wgsl:
 * [min(i, e), max(i, e)]); the CPU twin keeps both (vec2u pairs).
 * Parents (u32 per unified index): (parent record << 1) | side, side 0 = left; the root's parent record is the
 * header (n − 1).
 *
 * Morton codes are 64-bit keys (vec2u, .x = low word, .y = high word), bottom-aligned:
 *   d = 1: the order-preserving u32 image of the coordinate (exact, no quantisation), 32 bits;
 *   d = 2: 32 bits per axis; d = 3: 21 bits per axis; d ≥ 4: ⌊64/d⌋ bits per axis (0 for d > 64).
 * Bit t of axis a's cell goes to code bit t·d + (d − 1 − a) (axis 0 most significant within a bit group).
 */

import { InputError } from '../errors.js';

/**
 * Box parts. A device binds at most maxStorageBufferBindingSize bytes of one buffer (2 GiB − 4 on the H100), and
 * the box array of 10^8 points in 3D is 2.4 GB: kernels bind it as BOX_PARTS ranges of `boxPartRecords` whole
 * records each (the last range shorter; a part beyond the last record is bound to a small unused buffer), and read
 * the logical word i through shaders/bvh/boxread.wgsl. Records never straddle two parts, and the CPU twin's layout
 * is the logical array unchanged.
 */
export const BOX_PARTS = 3;

/**
 * Records per box part: the most whole records within `maxBindingBytes`, a multiple of boxPartAlign (a part is then
 * 32·8·d bytes, or 64·4·d in the u16 format, a multiple of the 256-byte storage offset alignment, for every d).
 */
export function boxPartRecords(maxBindingBytes: number, dim: number, format: BoxFormat = 'f32'): number {
  const align = boxPartAlign(format);
  return Math.max(align, Math.floor(maxBindingBytes / (4 * boxRecordWords(dim, format)) / align) * align);
}

/** Box part sizes are multiples of this many records (boxPartRecords) in the f32 format. */
export const BOX_PART_ALIGN = 32;

/** Box part sizes are multiples of this many records (boxPartRecords): 32 (f32), 64 (u16). */
export const boxPartAlign = (format: BoxFormat): number => (format === 'u16' ? 2 : 1) * BOX_PART_ALIGN;

/** Records in the box array of an n-point BVH: one per internal node, at least one (no zero-length buffers). */
export const boxRecords = (n: number): number => Math.max(n - 1, 1);

/**
 * The most points whose box array fits in `records` records (n − 1 records for n points, and the u16 format's two
 * frame records).
 */
export const pointsForBoxRecords = (records: number, format: BoxFormat = 'f32'): number =>
  records + 1 - (format === 'u16' ? 2 : 0);

/** "No node" / "no index". */
export const NONE = 0xffffffff;

/** Largest coordinate magnitude accepted (src/io/limits.ts, where the point readers check it too). */
export { MAX_COORDINATE } from '../io/limits.js';

/**
 * Traversal stack depth that can never overflow: along a root-to-leaf path the (code, position) prefix length
 * strictly grows, from ≥ 64 − codeBits to < 64 + 32, so a path has at most codeBits + 32 ≤ 96 internal nodes.
 */
export const STACK_SIZE = 96;

/** Bits per axis of the Morton code (d = 1: 32, the order-preserving image of the coordinate). */
export function bitsPerAxis(dim: number): number {
  if (dim === 1 || dim === 2) return 32;
  if (dim === 3) return 21;
  return Math.floor(64 / dim);
}

/** Number of significant (low) bits of a Morton code: the radix sort sorts bits [0, codeBits). */
export function codeBits(dim: number): number {
  return dim === 1 ? 32 : dim * bitsPerAxis(dim);
}

/**
 * The largest f32 cell value for `bits` bits per axis: 2^bits − 1 when that is a float, else the largest float
 * below 2^bits (bits > 24).
 */
export function maxCell(bits: number): number {
  if (bits === 0) return 0;
  if (bits <= 24) return 2 ** bits - 1;
  return 2 ** bits - 2 ** (bits - 24);
}

/** f32 words per record in `boxes` (the f32 format): lo, hi. */
export function boxWords(dim: number): number {
  return 2 * dim;
}

/**
 * Box formats (issue 19's memory). 'f32': each internal box as 2·d f32, lo then hi (above). 'u16': each box as d u32
 * words, word a = | hi_a 16 bits | lo_a 16 bits |, cells of a per-BVH frame rounded outward (shaders/bvh/box.wgsl
 * says how, and why exactly; CPU twin bvh/box.cpu.ts), 4·d bytes a record instead of 8·d — and after the last
 * record (record boxRecords(n)) two frame records: the d origins, then the d cell sizes (f32 bits). Split BVHs too:
 * Borůvka's split traversal, whose windows of records do not reach the frame, reads a copy (emst/nearestsplit.ts).
 */
export type BoxFormat = 'f32' | 'u16';

/** u32 words per box record. */
export function boxRecordWords(dim: number, format: BoxFormat): number {
  return format === 'u16' ? dim : 2 * dim;
}

/** Records of an n-point BVH's box array, the u16 format's two frame records included. */
export function boxArrayRecords(n: number, format: BoxFormat): number {
  return boxRecords(n) + (format === 'u16' ? 2 : 0);
}

/** Words of an n-point BVH's box array (boxArrayRecords × boxRecordWords). */
export function boxArrayWords(n: number, dim: number, format: BoxFormat): number {
  return boxArrayRecords(n, format) * boxRecordWords(dim, format);
}

/**
 * The box format of a BVH: `given`, else the environment variable TREELINE_BVH_BOXES (f32 or u16), else
 * DEFAULT_BOXES.
 */
export function boxFormatFor(dim: number, options: { given?: BoxFormat } = {}): BoxFormat {
  if (options.given) return options.given;
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_BVH_BOXES : undefined;
  if (env === 'f32' || env === 'u16') return env;
  if (env !== undefined && env !== '') throw new InputError(`TREELINE_BVH_BOXES: expected f32 or u16, got '${env}'.`);
  return DEFAULT_BOXES;
}

/**
 * The default box format: f32. u16 boxes (opt-in) share ONE frame per BVH, so a far outlier widens every cell: on
 * lavapipe, 30,000 normal 3D points with one point at 10^5 took 270 s with u16 boxes against 4.4 s with f32 (deep
 * boxes round out to a few cells of ~1.5 sigma and pruning collapses; same tree). Catalogues carry such sentinels.
 */
export const DEFAULT_BOXES: BoxFormat = 'f32';

/** f32 words of `bvh::frame`: lo[d], hi[d], scale[d] (morton.cpu.ts), then the u16 boxes' origin[d], cell[d]. */
export const FRAME_WORDS = (dim: number): number => 5 * dim;

/** The largest f32 value. */
export const F32_MAX = 3.4028234663852886e38;

/** The GPU's links words (left, right per record) of the CPU twin's four-word records (layout: "Records"). */
export function linkWords(records: Uint32Array): Uint32Array {
  const out = new Uint32Array(records.length / 2);
  for (let r = 0; r < out.length / 2; r++) {
    out[2 * r] = records[4 * r];
    out[2 * r + 1] = records[4 * r + 1];
  }
  return out;
}

/** The GPU's mins words (minIndex(left), minIndex(right) per record) of the CPU twin's four-word records. */
export function minIndexWords(records: Uint32Array): Uint32Array {
  const out = new Uint32Array(records.length / 2);
  for (let r = 0; r < out.length / 2; r++) {
    out[2 * r] = records[4 * r + 2];
    out[2 * r + 1] = records[4 * r + 3];
  }
  return out;
}

/** The CPU twin's four-word records of the GPU's links and mins words (the first `records` records of each). */
export function joinLinks(links: Uint32Array, mins: Uint32Array, records = links.length / 2): Uint32Array {
  const out = new Uint32Array(4 * records);
  for (let r = 0; r < records; r++) {
    out[4 * r] = links[2 * r];
    out[4 * r + 1] = links[2 * r + 1];
    out[4 * r + 2] = mins[2 * r];
    out[4 * r + 3] = mins[2 * r + 1];
  }
  return out;
}

/** The GPU's ranges (one u32 a node, the end other than the node: "Ranges" above) of the CPU twin's pairs. */
export function rangeOthers(pairs: Uint32Array): Uint32Array {
  const out = new Uint32Array(pairs.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = pairs[2 * i] === i ? pairs[2 * i + 1] : pairs[2 * i];
  return out;
}

/** The CPU twin's range pairs [first, last] of the GPU's other ends. */
export function rangePairs(others: Uint32Array): Uint32Array {
  const out = new Uint32Array(2 * others.length);
  for (let i = 0; i < others.length; i++) {
    out[2 * i] = Math.min(i, others[i]);
    out[2 * i + 1] = Math.max(i, others[i]);
  }
  return out;
}
