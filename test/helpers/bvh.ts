/**
 * Invariants of a linear BVH (layout in src/bvh/layout.ts), checked on host arrays from either backend:
 * every point in exactly one leaf, each range the union of its children's, the radix-tree split rule, every internal
 * node's box the union of its children's (a leaf child's box is its point; so, by induction, the tight box of its
 * leaves), minIndex the smallest original index below, exactly n − 1 box records, and the root box equal to the
 * scene bounds. Throws naming the node.
 */
import type { BvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { NONE, type BoxFormat } from '../../src/bvh/layout.js';
import { boxQuantHi, boxQuantLo } from '../../src/bvh/box.cpu.js';
import { maxF, minF } from '../../src/bvh/floatorder.js';

const same = (a: number, b: number) => Object.is(a, b);

function delta(codes: Uint32Array, i: number, j: number): number {
  const hi = (codes[2 * i + 1] ^ codes[2 * j + 1]) >>> 0;
  if (hi !== 0) return Math.clz32(hi);
  const lo = (codes[2 * i] ^ codes[2 * j]) >>> 0;
  if (lo !== 0) return 32 + Math.clz32(lo);
  return 64 + Math.clz32(i ^ j);
}

/**
 * `bvh.boxFormat` 'u16' (a GPU BVH as test/helpers/bvh.readback.ts reads it): each internal node's words are the
 * union of its children's cells (a leaf's: its point's, rounded outward), and the root's interval contains the scene
 * bounds — instead of the f32 boxes' exact unions.
 */
export function checkBvhInvariants(points: Float32Array, bvh: BvhCpu & { boxFormat?: BoxFormat }): void {
  const { n, dim, codes, order, sortedPoints, links, ranges, parents } = bvh;
  const u16 = bvh.boxFormat === 'u16';
  const boxes = u16 ? new Float32Array(0) : bvh.boxes;
  const fail = (msg: string) => {
    throw new Error(`BVH n=${n} d=${dim}: ${msg}`);
  };
  if (n === 0) return;
  // order is a permutation and sortedPoints follows it; codes are sorted.
  const seen = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    const o = order[j];
    if (o >= n || seen[o]) fail(`order[${j}] = ${o} is out of range or repeated`);
    seen[o] = 1;
    for (let a = 0; a < dim; a++) {
      if (!same(sortedPoints[j * dim + a], points[o * dim + a])) fail(`sortedPoints[${j}] is not point ${o}`);
    }
    if (j > 0) {
      const hiA = codes[2 * j - 1];
      const hiB = codes[2 * j + 1];
      if (hiA > hiB || (hiA === hiB && codes[2 * j - 2] > codes[2 * j])) fail(`codes not sorted at ${j}`);
      if (hiA === hiB && codes[2 * j - 2] === codes[2 * j] && order[j - 1] > order[j]) {
        fail(`equal codes at ${j - 1}, ${j} are not in index order`);
      }
    }
  }
  // Every node except the root is the child of exactly one record; the header's left child is the root.
  const w = 2 * dim;
  if (u16) checkBoxes16(bvh, fail);
  else if (boxes.length !== (n - 1) * w)
    fail(`boxes hold ${boxes.length} words, expected (n − 1)·2·dim = ${(n - 1) * w}`);
  const header = n - 1;
  if (links[4 * header] !== 0 || links[4 * header + 1] !== NONE)
    fail(`header links are ${links.slice(4 * header, 4 * header + 2)}`);
  const childOf = new Int32Array(2 * n - 1).fill(-1);
  for (let r = 0; r < n; r++) {
    for (let s = 0; s < 2; s++) {
      const c = links[4 * r + s];
      if (r === header && s === 1) continue;
      if (c >= 2 * n - 1) fail(`record ${r} child ${s} = ${c} out of range`);
      if (childOf[c] !== -1) fail(`node ${c} is a child of records ${childOf[c]} and ${r}`);
      childOf[c] = r;
      if (parents[c] !== ((r << 1) | s) >>> 0) fail(`parents[${c}] = ${parents[c]}, expected record ${r} side ${s}`);
    }
  }
  for (let c = 0; c < 2 * n - 1; c++) if (childOf[c] === -1) fail(`node ${c} has no parent`);
  // Ranges, the radix-tree split rule, boxes and minIndex, for every internal node.
  // A child's box: its record, or a leaf's point.
  const loOf = (c: number, a: number) => (c >= n - 1 ? sortedPoints[(c - (n - 1)) * dim + a] : boxes[c * w + a]);
  const hiOf = (c: number, a: number) => (c >= n - 1 ? sortedPoints[(c - (n - 1)) * dim + a] : boxes[c * w + dim + a]);
  const rangeOf = (c: number): [number, number] =>
    c >= n - 1 ? [c - (n - 1), c - (n - 1)] : [ranges[2 * c], ranges[2 * c + 1]];
  for (let i = 0; i < n - 1; i++) {
    const [l, r] = [ranges[2 * i], ranges[2 * i + 1]];
    const [ll, lr] = rangeOf(links[4 * i]);
    const [rl, rr] = rangeOf(links[4 * i + 1]);
    if (ll !== l || lr + 1 !== rl || rr !== r || l >= r)
      fail(`node ${i} range [${l}, ${r}] ≠ [${ll}, ${lr}] ∪ [${rl}, ${rr}]`);
    if (i !== l && i !== r) fail(`node ${i} is not an end of its range [${l}, ${r}] (Karras)`);
    const prefix = delta(codes, l, r);
    if (delta(codes, lr, rl) !== prefix) fail(`node ${i}: split δ ${delta(codes, lr, rl)} ≠ node prefix ${prefix}`);
    if (i > 0) {
      const p = parents[i] >>> 1;
      if (prefix <= delta(codes, ranges[2 * p], ranges[2 * p + 1]))
        fail(`node ${i}: prefix does not grow from parent ${p}`);
    }
    // This node's box (its own record) is the union of its children's (their records, or a leaf's point).
    const pr = parents[i];
    const dst = i * w;
    const [cl, cr] = [links[4 * i], links[4 * i + 1]];
    for (let a = 0; a < dim && !u16; a++) {
      const lo = minF(loOf(cl, a), loOf(cr, a));
      const hi = maxF(hiOf(cl, a), hiOf(cr, a));
      if (!same(boxes[dst + a], lo) || !same(boxes[dst + dim + a], hi)) {
        fail(
          `node ${i} axis ${a}: box [${boxes[dst + a]}, ${boxes[dst + dim + a]}] ≠ union of children [${lo}, ${hi}]`,
        );
      }
    }
    const mi = Math.min(links[4 * i + 2], links[4 * i + 3]);
    if (links[4 * (pr >>> 1) + 2 + (pr & 1)] !== mi) fail(`node ${i}: minIndex ≠ min of its children's`);
  }
  // Leaves: minIndex = original index (a leaf has no box record: its box is its point).
  for (let j = 0; j < n; j++) {
    const pr = parents[n - 1 + j];
    if (links[4 * (pr >>> 1) + 2 + (pr & 1)] !== order[j]) fail(`leaf ${j}: minIndex ≠ order[${j}]`);
  }
  // Root box (internal node 0's, or leaf 0's point when n = 1) = scene bounds = the tight box of all points.
  for (let a = 0; a < dim; a++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      lo = minF(lo, points[i * dim + a]);
      hi = maxF(hi, points[i * dim + a]);
    }
    const [rootLo, rootHi] = n === 1 ? [sortedPoints[a], sortedPoints[a]] : [boxes[a], boxes[dim + a]];
    if (!u16 && (!same(rootLo, lo) || !same(rootHi, hi))) fail(`root box axis ${a} is not the tight box`);
    if (!same(bvh.frame.lo[a], lo) || !same(bvh.frame.hi[a], hi)) fail(`scene bounds axis ${a} are not the tight box`);
  }
}

/** The u16 boxes' invariants (checkBvhInvariants): words = unions of the children's cells; the root holds the scene. */
function checkBoxes16(bvh: BvhCpu, fail: (msg: string) => never): void {
  const { n, dim, links, sortedPoints } = bvh;
  if (n < 2) return;
  const words = new Uint32Array(bvh.boxes.buffer, bvh.boxes.byteOffset, bvh.boxes.length);
  if (words.length !== (n + 1) * dim) fail(`u16 boxes hold ${words.length} words, expected (n − 1 + 2)·dim`);
  const frame = new Float32Array(words.buffer, words.byteOffset + 4 * (n - 1) * dim, 2 * dim);
  const cells = (c: number, a: number): [number, number] => {
    if (c < n - 1) return [words[c * dim + a] & 0xffff, words[c * dim + a] >>> 16];
    const x = sortedPoints[(c - (n - 1)) * dim + a];
    return [boxQuantLo(x, frame[a], frame[dim + a]), boxQuantHi(x, frame[a], frame[dim + a])];
  };
  for (let i = 0; i < n - 1; i++) {
    for (let a = 0; a < dim; a++) {
      const [l0, h0] = cells(links[4 * i], a);
      const [l1, h1] = cells(links[4 * i + 1], a);
      const [lo, hi] = cells(i, a);
      if (lo !== Math.min(l0, l1) || hi !== Math.max(h0, h1)) {
        fail(
          `node ${i} axis ${a}: u16 cells [${lo}, ${hi}] ≠ union of children [${Math.min(l0, l1)}, ${Math.max(h0, h1)}]`,
        );
      }
    }
  }
  for (let a = 0; a < dim; a++) {
    const [lo, hi] = cells(0, a);
    const [origin, cell] = [frame[a], frame[dim + a]];
    if (!(origin + lo * cell <= bvh.frame.lo[a]) || !(origin + hi * cell >= bvh.frame.hi[a])) {
      fail(`root u16 box axis ${a} does not contain the scene bounds`);
    }
  }
}
