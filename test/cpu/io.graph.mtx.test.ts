import { describe, expect, it } from 'vitest';
import { parseMatrixMarket, writeMatrixMarket } from '../../src/io/graph.mtx.js';
import { GraphFormatError } from '../../src/io/graph.text.js';
import { graphMstCpu } from '../../src/graph/mst.js';
import { randomGraph } from '../helpers/graph.random.js';

/** Expects parse to throw a GraphFormatError naming file, line and value. */
function rejects(text: string, line: number, value: string, message?: RegExp) {
  let err: unknown;
  try {
    parseMatrixMarket(text, 'bad.mtx');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GraphFormatError);
  const e = err as GraphFormatError;
  expect(e.file).toBe('bad.mtx');
  expect(e.line).toBe(line);
  expect(e.value).toBe(value);
  expect(e.message).toContain(`bad.mtx:${line}:`);
  expect(e.message).toContain(value);
  if (message) expect(e.message).toMatch(message);
}

describe('MatrixMarket reader and writer', () => {
  it('reads real symmetric files with comments, 1-based entries as undirected edges', () => {
    const g = parseMatrixMarket(
      '%%MatrixMarket matrix coordinate real symmetric\n% a comment\n\n3 3 3\n2 1 0.5\n3 2 -1.25e1\n3 3 7\n',
      'x.mtx',
    );
    expect(g.numVertices).toBe(3);
    expect(Array.from(g.sources)).toEqual([1, 2, 2]);
    expect(Array.from(g.targets)).toEqual([0, 1, 2]);
    expect(g.weights).toEqual(Float32Array.from([0.5, -12.5, 7]));
    expect(g.field).toBe('real');
    expect(g.symmetry).toBe('symmetric');
  });

  it('integer fields give Int32Array, or Uint32Array above 2^31 − 1; pattern gives weight 1 (Uint32Array)', () => {
    expect(parseMatrixMarket('%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -7\n').weights).toEqual(
      Int32Array.from([-7]),
    );
    expect(
      parseMatrixMarket('%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 4294967295\n').weights,
    ).toEqual(Uint32Array.from([4294967295]));
    const p = parseMatrixMarket('%%MATRIXMARKET Matrix Coordinate Pattern General\r\n2 2 2\r\n1 2\r\n2 1\r\n');
    expect(p.weights).toEqual(Uint32Array.from([1, 1]));
    expect(Array.from(p.sources)).toEqual([0, 1]);
  });

  for (const [type, field] of [
    ['f32', undefined],
    ['i32', undefined],
    ['u32', undefined],
    ['f32', 'pattern'],
  ] as const) {
    for (const symmetry of ['general', 'symmetric'] as const) {
      it(`round-trips ${type} weights (${field ?? 'default field'}, ${symmetry}) and the forest`, () => {
        const g = randomGraph(7, { numVertices: 60, numEdges: 300, weightType: type });
        const back = parseMatrixMarket(
          writeMatrixMarket(g, { field, symmetry, comment: 'test\nsecond line' }),
          'rt.mtx',
        );
        expect(back.numVertices).toBe(g.numVertices);
        for (let i = 0; i < g.sources.length; i++) {
          const [a, b] = [g.sources[i], g.targets[i]];
          if (symmetry === 'general') expect([back.sources[i], back.targets[i]]).toEqual([a, b]);
          else expect([back.sources[i], back.targets[i]]).toEqual([Math.max(a, b), Math.min(a, b)]);
        }
        if (field === 'pattern') expect(back.weights).toEqual(new Uint32Array(g.sources.length).fill(1));
        else {
          expect(back.weights).toEqual(g.weights);
          expect(Array.from(graphMstCpu(back).edgeIds)).toEqual(Array.from(graphMstCpu(g).edgeIds));
        }
      });
    }
  }

  it('rejects malformed files naming file, line and value', () => {
    const head = '%%MatrixMarket matrix coordinate real general\n';
    rejects(
      '%MatrixMarket matrix coordinate real general\n1 1 0\n',
      1,
      '%MatrixMarket matrix coordinate real general',
      /banner/,
    );
    rejects('%%MatrixMarket matrix array real general\n', 1, 'array', /coordinate/);
    rejects('%%MatrixMarket matrix coordinate complex general\n', 1, 'complex');
    rejects('%%MatrixMarket matrix coordinate real hermitian\n', 1, 'hermitian');
    rejects(head + '3 4 1\n', 2, '4', /square/);
    rejects(head + '3 3\n', 2, '3 3', /size line/);
    rejects(head + '% c\n3 3 x\n', 3, 'x', /entries/);
    rejects(head + '3 3 2\n1 2 1.5\n4 1 2\n', 4, '4', /row/);
    rejects(head + '3 3 2\n1 2 1.5\n1 0 2\n', 4, '0', /column/);
    rejects(head + '3 3 2\n1 2 1.5\n1 3 abc\n', 4, 'abc', /number/);
    rejects(head + '3 3 2\n1 2 1.5\n1 3 nan\n', 4, 'nan', /number/);
    rejects(head + '3 3 1\n1 2 1e39\n', 3, '1e39', /float32/);
    rejects(head + '3 3 1\n1 2\n', 3, '1 2', /3 values/);
    rejects(head + '3 3 1\n1 2 3\n2 3 4\n', 4, '2 3 4', /found more/);
    rejects(head + '3 3 3\n1 2 3\n2 3 4\n', 4, '2', /found 2/);
    rejects('%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 2.5\n', 3, '2.5', /integer/);
    rejects(
      '%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 -1\n1 3 3000000000\n',
      4,
      '3000000000',
      /int32/,
    );
  });
});
