/**
 * `treeline mst <graph>` through buildProgram(io): a small edge list with cycles and two components, every
 * --format, --labels, --one-based, the forest equal to graphMstCpu, and bad input.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { InputError } from '../../src/errors.js';
import { graphMstCpu } from '../../src/graph/index.js';
import { parseEdgeList } from '../../src/io/graph.edgelist.js';
import { parseNpy } from '../../src/io/npy.js';
import { parseCsvColumns, runCli, tempDir } from '../helpers/cli.js';
import { mulberry32 } from '../helpers/random.js';

const dir = tempDir();
// Two components: a random graph on 0…59 (a ring plus chords) and a triangle on 60…62.
const rand = mulberry32(17);
const lines = ['source,target,weight'];
for (let v = 0; v < 60; v++) lines.push(`${v},${(v + 1) % 60},${(1 + rand() * 9).toFixed(3)}`);
for (let k = 0; k < 90; k++)
  lines.push(`${Math.floor(rand() * 60)},${Math.floor(rand() * 60)},${(1 + rand() * 9).toFixed(3)}`);
lines.push('60,61,2', '61,62,1', '60,62,3');
const text = lines.join('\n') + '\n';
const graph = join(dir, 'graph.csv');
writeFileSync(graph, text);
const expected = graphMstCpu(parseEdgeList(text, 'graph.csv'));

function expectInputError(r: { error?: unknown }, message: RegExp): void {
  expect(r.error).toBeInstanceOf(InputError);
  expect(exitCodeFor(r.error)).toBe(EXIT.input);
  expect((r.error as Error).message).toMatch(message);
}

describe('treeline mst', () => {
  it('csv: edge_id,source,target,weight of the forest; total weight, components and backend on stderr', async () => {
    const r = await runCli(['mst', graph, '--backend', 'cpu']);
    expect(r.error).toBeUndefined();
    const cols = parseCsvColumns(r.out);
    expect(Object.keys(cols)).toEqual(['edge_id', 'source', 'target', 'weight']);
    expect(cols.edge_id).toEqual(Array.from(expected.edgeIds));
    expect(cols.source).toEqual(Array.from(expected.sources));
    expect(cols.weight.map(Math.fround)).toEqual(Array.from(expected.weights));
    expect(cols.edge_id.length).toBe(63 - 2);
    expect(r.log).toMatch(
      /63 vertices, 153 edges → forest of 61 edges, total weight [\d.]+, 2 components \(cpu backend, [\d.]+ ms\)/,
    );
  });

  it('json with --labels: summary, forest and component labels; npy: one file per column', async () => {
    const j = JSON.parse((await runCli(['mst', graph, '--format', 'json', '--labels', '--backend', 'cpu'])).out);
    expect(j.numComponents).toBe(2);
    expect(j.numVertices).toBe(63);
    expect(j.numEdges).toBe(61);
    expect(j.backend).toBe('cpu');
    expect(j.totalWeight).toBeCloseTo(expected.totalWeight, 9);
    expect(j.edgeIds).toEqual(Array.from(expected.edgeIds));
    expect(new Set(j.componentLabels)).toEqual(new Set([0, 60]));
    const out = join(dir, 'forest');
    expect((await runCli(['mst', graph, '--format', 'npy', '-o', out, '--labels'])).error).toBeUndefined();
    for (const f of ['edge_ids', 'sources', 'targets', 'weights'])
      expect(parseNpy(readFileSync(join(out, `${f}.npy`))).shape).toEqual([61]);
    expect(parseNpy(readFileSync(join(out, 'component_labels.npy'))).shape).toEqual([63]);
  });

  it('--one-based and --input-format', async () => {
    const file = join(dir, 'one.dat');
    writeFileSync(file, '1 2 5\n2 3 1\n1 3 2\n');
    const r = await runCli(['mst', file, '--one-based', '--input-format', 'edgelist', '--format', 'json']);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    expect(j.sources).toEqual([1, 0]);
    expect(j.targets).toEqual([2, 2]);
    expect(j.totalWeight).toBe(3);
  });

  it('bad input: missing file, malformed line, unknown extension, --labels with csv', async () => {
    expectInputError(await runCli(['mst', join(dir, 'none.mtx')]), /none\.mtx: no such file/);
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, '0 1 2\n1 x 3\n');
    expectInputError(await runCli(['mst', bad]), /bad\.txt/);
    const odd = join(dir, 'graph.xyz');
    writeFileSync(odd, '0 1 1\n');
    expectInputError(await runCli(['mst', odd]), /unknown graph format '\.xyz'/);
    expectInputError(await runCli(['mst', graph, '--labels']), /--labels/);
  });

  it('--help has examples', async () => {
    expect((await runCli(['mst', '--help'])).out).toMatch(/Examples:/);
  });
});
