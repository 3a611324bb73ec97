/**
 * Benchmark case: the GPU BVH build (bounds, Morton codes, radix sort, Karras hierarchy, refit) of n seeded
 * points, GPU-resident: the points are uploaded once, `encode` records one whole build into buffers allocated
 * once. ArborX's figures on the same H100 (DESIGN.md): normal 3D 10^7 points 4 ms, 3.7·10^7 points 12 ms.
 *
 * `check` compares the result with the CPU twin bit for bit up to 4M points; above, where the twin would take
 * minutes, it checks the structure of the whole tree (permutation, sorted codes, every internal node's range is
 * the union of its children's, parents agree) and the boxes of the root and of 2000 sampled nodes against the
 * tight boxes of their leaves.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { allocateBvh, createBvhBuilder } from '../bvh/lbvh.js';
import { buildBvhCpu } from '../bvh/lbvh.cpu.js';
import { maxF, minF } from '../bvh/floatorder.js';
import { boxQuantHi, boxQuantLo, quantiseBoxesCpu } from '../bvh/box.cpu.js';
import { linkWords, minIndexWords, rangeOthers, rangePairs } from '../bvh/layout.js';
import { generate, type GeneratorName } from '../datasets/generate.js';

const EXACT_LIMIT = 1 << 22;

export interface BvhBenchOptions {
  dim?: number;
  kind?: GeneratorName;
  seed?: number;
  /** 'exact' (default up to 4M points) or 'structure'. */
  check?: 'exact' | 'structure';
  /** The builder's refitDirect (lbvh.ts; for ablations). */
  refitDirect?: number;
  /**
   * Move point 0 to 10^6 on every axis (issue 18): the rest then share a handful of 32-bit code prefixes, so the
   * prefix sort's guarded full sort runs (prefixsort.ts) — its worst case.
   */
  outlier?: boolean;
}

export async function benchBvh(ctx: GpuContext, n: number, options: BvhBenchOptions = {}): Promise<BenchCase> {
  const dim = options.dim ?? 3;
  const points = generate(options.kind ?? 'normal', { n, dim, seed: options.seed ?? 1 });
  if (options.outlier) points.fill(1e6, 0, dim);
  const input = ctx.upload('bench::bvhPoints', points);
  const builder = await createBvhBuilder(ctx, { maxCount: n, dim, refitDirect: options.refitDirect });
  const bvh = allocateBvh(ctx, n, dim);
  const fail = (msg: string): never => {
    throw new Error(`bench::bvh (n=${n}, d=${dim}): ${msg}`);
  };
  const exact = (options.check ?? (n <= EXACT_LIMIT ? 'exact' : 'structure')) === 'exact';
  const u32 = async (b: GPUBuffer, bytes: number) => new Uint32Array(await ctx.read(b, 0, bytes));
  const u16 = bvh.boxFormat === 'u16';

  async function checkExact(): Promise<void> {
    const want = buildBvhCpu(points, dim);
    const pairs: [string, GPUBuffer, ArrayBufferView][] = [
      ['codes', bvh.codes, want.codes],
      ['order', bvh.order, want.order],
      // links and minIndex: the twin's four-word records as the GPU's two arrays (layout.ts, "Records").
      ['links', bvh.links, linkWords(want.links)],
      ['mins', bvh.mins, minIndexWords(want.links)],
      // u16 boxes: the twin's quantised (box.cpu.ts); ranges: one end each (layout.ts).
      ['boxes', bvh.boxes, u16 ? quantiseBoxesCpu(want.boxes, n, dim, want.frame) : want.boxes],
      ['ranges', bvh.ranges, rangeOthers(want.ranges)],
      ['parents', bvh.parents, want.parents],
    ];
    for (const [name, buf, ref] of pairs) {
      const w = new Uint32Array(ref.buffer, ref.byteOffset, ref.byteLength / 4);
      const got = await u32(buf, ref.byteLength);
      for (let i = 0; i < w.length; i++) if (got[i] !== w[i]) fail(`${name}[${i}] = ${got[i]}, CPU twin ${w[i]}`);
    }
  }

  async function checkStructure(): Promise<void> {
    const codes = await u32(bvh.codes, 8 * n);
    const order = await u32(bvh.order, 4 * n);
    const links = await u32(bvh.links, 8 * n);
    const ranges = rangePairs(await u32(bvh.ranges, 4 * (n - 1)));
    const parents = await u32(bvh.parents, 4 * (2 * n - 1));
    const seen = new Uint8Array(n);
    for (let j = 0; j < n; j++) {
      if (order[j] >= n || seen[order[j]]) fail(`order[${j}] = ${order[j]} repeated or out of range`);
      seen[order[j]] = 1;
      if (j > 0 && (codes[2 * j - 1] > codes[2 * j + 1] || (codes[2 * j - 1] === codes[2 * j + 1] && codes[2 * j - 2] > codes[2 * j]))) {
        fail(`codes not sorted at ${j}`);
      }
    }
    const range = (c: number) => (c >= n - 1 ? [c - n + 1, c - n + 1] : [ranges[2 * c], ranges[2 * c + 1]]);
    for (let i = 0; i < n - 1; i++) {
      const [l, r] = [ranges[2 * i], ranges[2 * i + 1]];
      const a = range(links[2 * i]);
      const b = range(links[2 * i + 1]);
      if (a[0] !== l || a[1] + 1 !== b[0] || b[1] !== r) fail(`node ${i}: range [${l}, ${r}] ≠ [${a}] ∪ [${b}]`);
      if (parents[links[2 * i]] !== 2 * i || parents[links[2 * i + 1]] !== 2 * i + 1) fail(`node ${i}: parents disagree`);
    }
    // Boxes of the root and of sampled nodes = the tight box of their leaves (u16: its cells, box.cpu.ts).
    const sorted = new Float32Array(await ctx.read(bvh.sortedPoints, 0, 4 * n * dim));
    const frame = u16 ? new Float32Array(await ctx.read(bvh.boxes, 4 * dim * (n - 1), 8 * dim)) : null;
    const sample = [0];
    for (let s = 1; s <= 2000 && s < n - 1; s++) sample.push(Math.floor(((s * 0.6180339887498949) % 1) * (n - 1)));
    for (const i of sample) {
      const [l, r] = [ranges[2 * i], ranges[2 * i + 1]];
      const box = new Float32Array(await ctx.read(bvh.boxes, (u16 ? 4 : 8) * dim * i, (u16 ? 4 : 8) * dim));
      const words = new Uint32Array(box.buffer);
      for (let a = 0; a < dim; a++) {
        let lo = Infinity;
        let hi = -Infinity;
        for (let j = l; j <= r; j++) {
          lo = minF(lo, sorted[j * dim + a]);
          hi = maxF(hi, sorted[j * dim + a]);
        }
        if (frame) {
          const [o, c] = [frame[a], frame[dim + a]];
          const want = ((boxQuantHi(hi, o, c) << 16) | boxQuantLo(lo, o, c)) >>> 0;
          if (words[a] !== want) fail(`node ${i} axis ${a}: u16 box is not the cells of its leaves' tight box`);
        } else if (!Object.is(box[a], lo) || !Object.is(box[dim + a], hi)) {
          fail(`node ${i} axis ${a}: box is not the tight box of its leaves`);
        }
      }
    }
  }

  return {
    encode: (rec) => builder.encode(rec, input, n, bvh),
    check: () => (exact ? checkExact() : checkStructure()),
    notes: () => {
      const { radixBits, workgroupSize, keysPerThread } = builder.sorter.shape;
      const refit = builder.refitChunkLeaves > 0 ? `chunks of ${builder.refitChunkLeaves} leaves` : 'direct scans';
      const checked = exact ? 'checked bit for bit against the CPU twin' : 'checked: structure of every node, boxes of ≤ 2001 nodes';
      return `${checked}; sort ${radixBits}-bit digits, ${workgroupSize} threads × ${keysPerThread} keys; refit ${refit}`;
    },
    destroy: () => {
      bvh.destroy();
      builder.destroy();
      input.destroy();
    },
  };
}
