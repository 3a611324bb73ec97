import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { graphFormatOf, readGraph, writeGraph } from '../../src/io/graph.js';
import { forestColumns, forestJson, graphMstFromFile } from '../../src/graph/file.js';
import { graphMstCpu } from '../../src/graph/mst.js';
import { InputError } from '../../src/errors.js';
import { randomGraph } from '../helpers/graph.random.js';

const dir = await mkdtemp(join(tmpdir(), 'treeline-graph-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('graph files by extension', () => {
  it('knows the extensions and rejects others', () => {
    expect(['a.mtx', 'b.gr', 'c.egr', 'd.txt', 'e.csv', 'f.edges', 'g.EL'].map(graphFormatOf)).toEqual([
      'mtx',
      'gr',
      'egr',
      'edgelist',
      'csv',
      'edgelist',
      'edgelist',
    ]);
    expect(() => graphFormatOf('x.json')).toThrow(InputError);
    expect(() => graphFormatOf('x.json')).toThrow(/unknown graph format '.json'/);
  });

  for (const ext of ['mtx', 'gr', 'egr', 'txt', 'csv']) {
    it(`writes and reads .${ext}; graphMstFromFile gives the forest of the same weight`, async () => {
      const g = randomGraph(30, { numVertices: 90, numEdges: 500, weightType: 'i32', distinctWeights: 1000 });
      const path = join(dir, `g.${ext}`);
      await writeGraph(path, g);
      const back = await readGraph(path, { numVertices: ext === 'txt' || ext === 'csv' ? 90 : undefined });
      const want = graphMstCpu(g);
      const { result, numVertices } = await graphMstFromFile(path, { backend: 'cpu', numVertices: 90 });
      expect(numVertices).toBe(90);
      expect(result.totalWeight).toBe(want.totalWeight);
      expect(result.components).toBe(want.components);
      // Edge lists keep edge order (ids survive); .egr renumbers ids as CSR entries.
      if (ext !== 'egr') expect(Array.from(graphMstCpu(back).edgeIds)).toEqual(Array.from(want.edgeIds));
      const cols = forestColumns(result);
      expect(Object.keys(cols)).toEqual(['edge_id', 'source', 'target', 'weight']);
      expect(forestJson(result)).toMatchObject({ numEdges: result.edgeIds.length, totalWeight: want.totalWeight });
    });
  }

  it('reader errors name the file path', async () => {
    const path = join(dir, 'broken.gr');
    await (await import('node:fs/promises')).writeFile(path, 'p sp 2 1\na 1 3 4\n');
    await expect(readGraph(path)).rejects.toThrow(`${path}:2: expected the head vertex in [1, 2], got '3'.`);
  });
});
