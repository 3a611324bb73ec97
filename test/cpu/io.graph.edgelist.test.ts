import { describe, expect, it } from 'vitest';
import { parseEdgeList, writeEdgeList } from '../../src/io/graph.edgelist.js';
import { GraphFormatError } from '../../src/io/graph.text.js';
import { graphMstCpu } from '../../src/graph/mst.js';
import { randomGraph } from '../helpers/graph.random.js';

function rejects(text: string, line: number, value: string, message?: RegExp, options = {}) {
  let err: unknown;
  try {
    parseEdgeList(text, 'bad.txt', options);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GraphFormatError);
  const e = err as GraphFormatError;
  expect([e.file, e.line, e.value]).toEqual(['bad.txt', line, value]);
  expect(e.message).toContain(`bad.txt:${line}:`);
  if (message) expect(e.message).toMatch(message);
}

describe('edge-list reader and writer', () => {
  it('reads whitespace, tab and comma separated lines, comments and a header', () => {
    const g = parseEdgeList('# comment\nsource,target,weight\n0,1,2.5\n1\t2\t-1\n\n% other comment\n2 0   3\n');
    expect(g.numVertices).toBe(3);
    expect(Array.from(g.sources)).toEqual([0, 1, 2]);
    expect(Array.from(g.targets)).toEqual([1, 2, 0]);
    expect(g.weights).toEqual(Float32Array.from([2.5, -1, 3]));
  });

  it('infers integer weights, unit weights for two columns, 1-based ids and a given vertex count', () => {
    expect(parseEdgeList('0 1 5\n1 2 -3\n').weights).toEqual(Int32Array.from([5, -3]));
    expect(parseEdgeList('0 1 5\n1 2 4000000000\n').weights).toEqual(Uint32Array.from([5, 4000000000]));
    expect(parseEdgeList('0 1 -5\n1 2 4000000000\n').weights).toEqual(Float32Array.from([-5, 4000000000]));
    expect(parseEdgeList('0 1 5\n1 2 3\n', 'x', { weights: 'float' }).weights).toEqual(Float32Array.from([5, 3]));
    const g = parseEdgeList('1 2\n3 1\n', 'x', { oneBased: true, numVertices: 10 });
    expect(g).toEqual({
      numVertices: 10,
      sources: Uint32Array.from([0, 2]),
      targets: Uint32Array.from([1, 0]),
      weights: Uint32Array.from([1, 1]),
    });
    expect(parseEdgeList('').numVertices).toBe(0);
  });

  for (const type of ['f32', 'i32', 'u32'] as const) {
    for (const delimiter of [' ', ',', '\t']) {
      it(`round-trips ${type} weights with delimiter ${JSON.stringify(delimiter)}`, () => {
        const g = randomGraph(9, { numVertices: 50, numEdges: 250, weightType: type, distinctWeights: 50 });
        // Keep the vertex count explicit: the largest vertex may be isolated.
        const back = parseEdgeList(writeEdgeList(g, { delimiter, header: delimiter === ',' }), 'rt', {
          numVertices: g.numVertices,
        });
        expect(back.sources).toEqual(g.sources);
        expect(back.targets).toEqual(g.targets);
        expect(Array.from(back.weights)).toEqual(Array.from(g.weights));
        expect(Array.from(graphMstCpu(back).edgeIds)).toEqual(Array.from(graphMstCpu(g).edgeIds));
      });
    }
  }

  it('float weights survive exactly through the shortest decimal', () => {
    const w = Float32Array.from([0.1, 1 / 3, -1e-40, 3.4028234663852886e38, 1e-7, -0.5, -3.4028234663852886e38]);
    const g = { numVertices: 2, sources: new Uint32Array(7), targets: new Uint32Array(7).fill(1), weights: w };
    const text = writeEdgeList(g);
    expect(text.split('\n')[0]).toBe('0 1 0.1');
    expect(parseEdgeList(text, 'x', { weights: 'float' }).weights).toEqual(w);
  });

  it('rejects malformed files naming file, line and value', () => {
    rejects('0 1 2\n1 2 3 4\n', 2, '1 2 3 4', /3 fields/);
    rejects('0\n', 1, '0', /2 or 3 fields/);
    rejects('0 1 2\n1 x 3\n', 2, 'x', /second vertex/);
    rejects('0 1 2\n-1 2 3\n', 2, '-1', /first vertex/);
    rejects('0 1 2\n1 2 abc\n', 2, 'abc', /number/);
    rejects('0 1 2\n1 2 NaN\n', 2, 'NaN', /number/);
    rejects('1 2\n0 1\n', 2, '0', /first vertex/, { oneBased: true });
    rejects('0 1\n0 5\n', 2, '5', /second vertex/, { numVertices: 5 });
    rejects('0 1 1e40\n', 1, '1e40', /float32/);
  });

  it('issue 15: a weight must be a finite float32: inf, -Infinity and 1e39 are rejected alike', () => {
    for (const w of ['inf', '-Infinity', '+inf', '1e39', '-1e39'])
      rejects(`0 1 2\n1 2 ${w}\n`, 2, w, /finite weight within the float32 range \(\|w\| ≤ 3.4028235e38\)/);
    expect(parseEdgeList('0 1 3.4028235e38\n').weights).toEqual(Float32Array.from([3.4028234663852886e38]));
  });
});
