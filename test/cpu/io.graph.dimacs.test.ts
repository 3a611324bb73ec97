import { describe, expect, it } from 'vitest';
import { parseDimacs, writeDimacs } from '../../src/io/graph.dimacs.js';
import { GraphFormatError } from '../../src/io/graph.text.js';
import { graphMstCpu } from '../../src/graph/mst.js';
import { randomGraph } from '../helpers/graph.random.js';

function rejects(text: string, line: number | null, value: string, message?: RegExp) {
  let err: unknown;
  try {
    parseDimacs(text, 'bad.gr');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GraphFormatError);
  const e = err as GraphFormatError;
  expect([e.file, e.line, e.value]).toEqual(['bad.gr', line, value]);
  expect(e.message).toContain(`bad.gr:${line}:`);
  if (message) expect(e.message).toMatch(message);
}

describe('DIMACS .gr reader and writer', () => {
  it('reads arcs 1-based with comments; each arc is one edge (both directions kept as parallel edges)', () => {
    const g = parseDimacs('c road\np sp 3 4\nc arcs\na 1 2 10\na 2 1 10\na 2 3 -5\n\na 3 1 7\n');
    expect(g.numVertices).toBe(3);
    expect(Array.from(g.sources)).toEqual([0, 1, 1, 2]);
    expect(Array.from(g.targets)).toEqual([1, 0, 2, 0]);
    expect(g.weights).toEqual(Int32Array.from([10, 10, -5, 7]));
    expect(Array.from(graphMstCpu(g).edgeIds)).toEqual([2, 3]);
  });

  for (const type of ['i32', 'u32'] as const) {
    it(`round-trips ${type} weights, edge order and the forest`, () => {
      const g = randomGraph(8, { numVertices: 80, numEdges: 400, weightType: type });
      const back = parseDimacs(writeDimacs(g, 'two\nlines'), 'rt.gr');
      expect(back).toEqual(g);
      expect(Array.from(graphMstCpu(back).edgeIds)).toEqual(Array.from(graphMstCpu(g).edgeIds));
    });
  }

  it('the writer rejects non-integer weights', () => {
    const g = {
      numVertices: 2,
      sources: Uint32Array.from([0]),
      targets: Uint32Array.from([1]),
      weights: Float32Array.from([0.5]),
    };
    expect(() => writeDimacs(g)).toThrow(/integers, got weights\[0\] = 0.5/);
  });

  it('rejects malformed files naming file, line and value', () => {
    rejects('c x\na 1 2 3\n', 2, 'a 1 2 3', /problem line/);
    rejects('p sp 3\n', 1, 'p sp 3', /problem line/);
    rejects('p max 3 1\n', 1, 'p max 3 1', /problem line/);
    rejects('p sp 3 1\np sp 3 1\n', 2, 'p sp 3 1', /one problem line/);
    rejects('p sp 3 x\n', 1, 'x', /arc count/);
    rejects('p sp 3 2\na 1 2 3\na 1 4 3\n', 3, '4', /head vertex/);
    rejects('p sp 3 2\na 1 2 3\na 0 2 3\n', 3, '0', /tail vertex/);
    rejects('p sp 3 2\na 1 2 3\na 1 2 3.5\n', 3, '3.5', /integer/);
    rejects('p sp 3 2\na 1 2 3\na 1 2\n', 3, 'a 1 2', /arc line/);
    rejects('p sp 3 1\na 1 2 3\na 1 3 1\n', 3, 'a 1 3 1', /found more/);
    rejects('p sp 3 3\na 1 2 3\n', 1, '3', /found 1/);
    rejects('p sp 3 1\ne 1 2\n', 2, 'e', /'c', 'p' or 'a'/);
    rejects('c only comments\n', 1, '', /missing the problem line/);
  });
});
