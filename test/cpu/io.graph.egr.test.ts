import { describe, expect, it } from 'vitest';
import { csrToEdgeList, edgeListToCsr, parseEgr, writeEgr } from '../../src/io/graph.egr.js';
import { GraphFormatError } from '../../src/io/graph.text.js';
import { graphMstCpu } from '../../src/graph/mst.js';
import { kruskalOracle } from '../helpers/kruskal.js';
import { randomGraph } from '../helpers/graph.random.js';

function egrBytes(words: number[], extraBytes = 0): Uint8Array {
  const out = new Uint8Array(4 * words.length + extraBytes);
  const dv = new DataView(out.buffer);
  words.forEach((w, i) => dv.setInt32(4 * i, w, true));
  return out;
}

function rejects(bytes: Uint8Array, value: string, message: RegExp) {
  let err: unknown;
  try {
    parseEgr(bytes, 'bad.egr');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GraphFormatError);
  const e = err as GraphFormatError;
  expect(e.file).toBe('bad.egr');
  expect(e.value).toBe(value);
  expect(e.message).toMatch(/^bad\.egr: byte \d+: /);
  expect(e.message).toMatch(message);
}

describe('ECL .egr reader and writer', () => {
  // The triangle 0–1 (w 5), 1–2 (w 3), 0–2 (w 4), each stored in both rows, as gen_graph.py writes it.
  const triangle = [3, 6, 0, 2, 4, 6, 1, 2, 0, 2, 0, 1, 5, 4, 5, 3, 4, 3];

  it("reads a weighted CSR; graphMst edge ids are the entries in the smaller endpoint's row", () => {
    const g = parseEgr(egrBytes(triangle), 't.egr');
    expect(g.weighted).toBe(true);
    expect(Array.from(g.offsets)).toEqual([0, 2, 4, 6]);
    const r = graphMstCpu(g);
    // 1–2 (w 3) is entry 3 (row 1), 0–2 (w 4) is entry 1 (row 0).
    expect(Array.from(r.edgeIds)).toEqual([3, 1]);
    expect(r.totalWeight).toBe(7);
  });

  it('a file without weights gets weight 1 everywhere', () => {
    const g = parseEgr(egrBytes(triangle.slice(0, 12)));
    expect(g.weighted).toBe(false);
    expect(g.weights).toEqual(new Int32Array(6).fill(1));
  });

  it('round-trips, also from an unaligned buffer, and the forest maps through entryOf', () => {
    const el = randomGraph(10, { numVertices: 120, numEdges: 700, weightType: 'i32' });
    const { csr, entryOf } = edgeListToCsr(el);
    const bytes = writeEgr(csr);
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    for (const b of [bytes, shifted]) {
      const back = parseEgr(b, 'rt.egr');
      expect(Array.from(back.offsets)).toEqual(Array.from(csr.offsets));
      expect(Array.from(back.neighbours)).toEqual(Array.from(csr.neighbours));
      expect(back.weights).toEqual(csr.weights);
    }
    // Same undirected graph: same forest weight; ids map through entryOf where the parallel-edge choice agrees.
    const viaCsr = graphMstCpu(csr);
    expect(viaCsr.totalWeight).toBe(graphMstCpu(el).totalWeight);
    expect(Array.from(viaCsr.edgeIds)).toEqual(kruskalOracle(csr).ids);
    expect(entryOf.filter((e) => e !== 0xffffffff).length).toBe(csr.neighbours.length / 2);
    const back = csrToEdgeList(csr);
    expect(graphMstCpu(back).totalWeight).toBe(viaCsr.totalWeight);
  });

  it('the writer rejects weights that are not int32', () => {
    const csr = {
      offsets: Uint32Array.from([0, 1, 2]),
      neighbours: Uint32Array.from([1, 0]),
      weights: Float32Array.from([0.5, 0.5]),
    };
    expect(() => writeEgr(csr)).toThrow(/int32, got weights\[0\] = 0.5/);
  });

  it('rejects malformed files naming file, byte and value', () => {
    rejects(new Uint8Array(5), '5', /8-byte header/);
    rejects(egrBytes([-1, 0]), '-1', /node count/);
    rejects(egrBytes([2, -3]), '-3', /edge count/);
    rejects(egrBytes(triangle, 4), '76', /need 72 \(with weights\) or 48/);
    rejects(egrBytes([3, 6, 1, 2, 4, 6, 1, 2, 0, 2, 0, 1]), '1', /nindex\[0\] = 0/);
    rejects(egrBytes([3, 6, 0, 4, 2, 6, 1, 2, 0, 2, 0, 1]), '2', /non-decreasing/);
    rejects(egrBytes([3, 6, 0, 2, 4, 5, 1, 2, 0, 2, 0, 1]), '5', /nindex\[3\] = edges = 6/);
    rejects(egrBytes([3, 6, 0, 2, 4, 6, 1, 2, 0, 7, 0, 1]), '7', /nlist\[3\] in \[0, 3\)/);
  });
});
