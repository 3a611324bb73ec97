/**
 * Issue 15 §5, the CLI's paper cuts, through the real `treeline` executable (a child process): --min-cluster-size's
 * default and its warning, unknown options spelled with underscores, --help listing every input format, suite and
 * default, one naming of result arrays across commands and formats, backend and plural messages, hdbscan --validity.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { suites } from '../../src/bench/suites.js';
import { relativeValidity } from '../../src/cluster/validity.js';
import { blobs, GENERATOR_DEFAULTS, GENERATORS } from '../../src/datasets/generate.js';
import { hdbscan } from '../../src/hdbscan.js';
import { GRAPH_EXTENSIONS, graphFormatOf } from '../../src/io/graph.js';
import { parseNpy } from '../../src/io/npy.js';
import { POINT_EXTENSIONS, pointFormat } from '../../src/io/points.js';
import { runCliProcess as runCli } from '../helpers/cli.process.js';
import { parseCsvColumns, tempDir, writePointsCsv } from '../helpers/cli.js';

const dir = tempDir();
const n = 150;
const points = blobs({ n, dim: 2, seed: 5, clusters: 3 });
const csv = writePointsCsv(join(dir, 'points.csv'), points, 2);
const cpu = ['--backend', 'cpu'];
const graph = join(dir, 'graph.txt');
writeFileSync(graph, '0 1 3\n1 2 1\n0 2 2\n3 4 5\n');
const npyShape = (path: string) => parseNpy(readFileSync(path)).shape;

describe('issue 15: --min-cluster-size', () => {
  it('hdbscan without --min-cluster-size uses 5, hdbscan’s and scikit-learn’s min_cluster_size, as hdbscan() does', async () => {
    const r = await runCli(['hdbscan', csv, '--format', 'json', ...cpu]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.minClusterSize).toBe(5);
    expect(j.minSamples).toBe(5);
    const lib = await hdbscan(points, { keep: { mst: true, singleLinkage: true }, dim: 2, backend: 'cpu' }); // the library's default is the same 5
    expect(lib.options.minClusterSize).toBe(5);
    expect(j.labels).toEqual(Array.from(lib.labels));
    expect(r.stderr).toMatch(/minClusterSize 5, minSamples 5/);
    expect((await runCli(['hdbscan', '--help'])).stdout).toMatch(/--min-cluster-size <sizes>[^]*\(default: 5\)/);
  });

  it('--min-cluster-size larger than n warns on stderr and still clusters (every point noise)', async () => {
    const r = await runCli(['hdbscan', csv, '--min-cluster-size', '200,10', ...cpu]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: --min-cluster-size 200 is larger than the 150 points of .*points\.csv: every point will be noise/,
    );
    expect(r.stderr).not.toMatch(/--min-cluster-size 10 is larger/);
    const cols = parseCsvColumns(r.stdout);
    expect(cols.label_mcs200).toHaveLength(n);
    expect(cols.label_mcs200.every((l) => l === -1)).toBe(true);
    const single = await runCli(['hdbscan', csv, '--min-cluster-size', '200', '--allow-single-cluster', ...cpu]);
    expect(single.stderr).toMatch(
      /larger than the 150 points of .*: at most one cluster, all the points \(--allow-single-cluster\)/,
    );
    expect(single.stderr).toMatch(/: 1 cluster, 0 noise/);
    const fine = await runCli(['hdbscan', csv, '--min-cluster-size', '150', ...cpu]);
    expect(fine.stderr).not.toMatch(/warning/);
  });
});

describe('issue 15: an unknown option spelled with underscores suggests the dashed one', () => {
  for (const [args, unknown, meant] of [
    [['hdbscan', csv, '--min_cluster_size', '5'], '--min_cluster_size', '--min-cluster-size'],
    [['hdbscan', csv, '--min_cluster_size=5'], '--min_cluster_size=5', '--min-cluster-size'],
    [['hdbscan', csv, '--allow_single_cluster'], '--allow_single_cluster', '--allow-single-cluster'],
    [['emst', csv, '--min_samples=3'], '--min_samples=3', '--min-samples'],
    [['stats', csv, '--min_edge_length', '1'], '--min_edge_length', '--min-edge-length'],
  ] as const) {
    it(`${args[0]} ${unknown}: "unknown option", "Did you mean ${meant}?", exit 2`, async () => {
      const r = await runCli([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown option '${unknown}'`);
      expect(r.stderr).toContain(`(Did you mean ${meant}?)`);
      expect(r.stdout).toBe('');
    });
  }

  it('an unknown option with no dashed twin keeps commander’s own message', async () => {
    const r = await runCli(['hdbscan', csv, '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--frobnicate'");
    expect(r.stderr).not.toContain('Did you mean');
  });
});

describe('issue 15: --help lists every input format, suite and default', () => {
  const pointExtensions = [...Object.values(POINT_EXTENSIONS).flat(), '.f32', '.raw'];

  it('the listed extensions are what the readers take (POINT_EXTENSIONS, GRAPH_EXTENSIONS)', () => {
    for (const [format, exts] of Object.entries(POINT_EXTENSIONS))
      for (const e of exts) expect(pointFormat(`a${e}`), e).toBe(format);
    for (const [e, format] of Object.entries(GRAPH_EXTENSIONS)) expect(graphFormatOf(`a${e}`)).toBe(format);
  });

  for (const cmd of ['emst', 'hdbscan', 'stats', 'predict']) {
    it(`${cmd} --help lists every point format`, async () => {
      const r = await runCli([cmd, '--help']);
      expect(r.code).toBe(0);
      const listed = r.stdout.slice(r.stdout.indexOf('Point files, by extension:'));
      for (const e of pointExtensions)
        expect(listed, e).toMatch(new RegExp(`(^|\\s)${e.replace(/\./g, '\\.')}(\\s|$)`, 'm'));
      for (const name of ['NumPy', 'HDF5', 'FITS', 'Parquet', 'Arrow', 'ArborX']) expect(listed).toContain(name);
    });
  }

  it('mst --help lists every graph format', async () => {
    const r = await runCli(['mst', '--help']);
    const listed = r.stdout.slice(r.stdout.indexOf('Graph files, by extension:'));
    for (const e of Object.keys(GRAPH_EXTENSIONS))
      expect(listed, e).toMatch(new RegExp(`(^|\\s)${e.replace(/\./g, '\\.')}(\\s|$)`, 'm'));
    for (const name of ['MatrixMarket', 'DIMACS', 'ECL', 'edge list']) expect(listed).toContain(name);
  });

  it('bench --help lists every suite', async () => {
    const r = await runCli(['bench', '--help']);
    expect(r.code).toBe(0);
    for (const name of [
      ...Object.keys(suites),
      'hdbscan-blobs2d',
      'hdbscan-normal3d',
      'hdbscan-normal3d-f64',
      'stats-uniform3d',
      'stats-cosmology3d',
    ]) {
      expect(r.stdout, name).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
    expect(r.stdout).toContain(suites.copy.description);
  });

  it('generate --help gives every generator and every default (clusters, noise, box, dim, seed)', async () => {
    const r = await runCli(['generate', '--help']);
    expect(r.code).toBe(0);
    for (const g of GENERATORS) expect(r.stdout).toMatch(new RegExp(`^  ${g} `, 'm'));
    const { blobs: b, visualvar: v, cosmology: c } = GENERATOR_DEFAULTS;
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(`default: blobs ${b.clusters}, visualvar ${v.clusters}`);
    expect(text).toContain(`default: blobs ${b.noise}, visualvar ${v.noise}`);
    expect(text).toContain(`[−${b.halfWidth}, ${b.halfWidth})^d`);
    expect(text).toContain(`[0, ${v.box}]^d`);
    expect(text).toContain(`[0, ${c.box})^d`);
    expect(text).toMatch(/-d, --dim <d> dimension \(default: 2\)/);
    expect(text).toMatch(/--seed <s> random seed \(default: 1\)/);
  });
});

describe('issue 15: one naming of result arrays (CSV: singular; JSON: the API’s names, counts num…; npy: snake_case)', () => {
  it('emst: csv source,target,weight; json numEdges (a count) and sources/targets/weights; npy sources.npy…', async () => {
    const r = await runCli(['emst', csv, '--format', 'json', ...cpu]);
    const j = JSON.parse(r.stdout);
    expect(j.numEdges).toBe(n - 1);
    expect(j).not.toHaveProperty('edges');
    for (const k of ['sources', 'targets', 'weights']) expect(j[k]).toHaveLength(n - 1);
    expect(Object.keys(parseCsvColumns((await runCli(['emst', csv, ...cpu])).stdout))).toEqual([
      'source',
      'target',
      'weight',
    ]);
    const out = join(dir, 'emst-npy');
    expect((await runCli(['emst', csv, '--format', 'npy', '-o', out, ...cpu])).code).toBe(0);
    for (const k of ['sources', 'targets', 'weights']) expect(npyShape(join(out, `${k}.npy`))).toEqual([n - 1]);
  });

  it('mst: csv edge_id,source,target,weight; json numEdges/numVertices/numComponents; npy sources.npy… (not source.npy)', async () => {
    const r = await runCli(['mst', graph, '--format', 'json', ...cpu]);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ numVertices: 5, numInputEdges: 4, numEdges: 3, numComponents: 2, backend: 'cpu' });
    expect(j).not.toHaveProperty('edges');
    expect(j.sources).toEqual([1, 0, 3]);
    expect(j.edgeIds).toEqual([1, 2, 3]);
    expect(Object.keys(parseCsvColumns((await runCli(['mst', graph, ...cpu])).stdout))).toEqual([
      'edge_id',
      'source',
      'target',
      'weight',
    ]);
    const out = join(dir, 'mst-npy');
    expect((await runCli(['mst', graph, '--format', 'npy', '-o', out, '--labels', ...cpu])).code).toBe(0);
    for (const k of ['edge_ids', 'sources', 'targets', 'weights']) expect(npyShape(join(out, `${k}.npy`))).toEqual([3]);
    expect(npyShape(join(out, 'component_labels.npy'))).toEqual([5]);
  });

  it('hdbscan: the tree beside the clustering is mst.{sources,targets,weights} in json, mst_{sources,…}.npy', async () => {
    const j = JSON.parse((await runCli(['hdbscan', csv, '--format', 'json', ...cpu])).stdout);
    for (const k of ['sources', 'targets', 'weights']) expect(j.mst[k]).toHaveLength(n - 1);
    expect(typeof j.numClusters).toBe('number');
    const out = join(dir, 'hdbscan-npy');
    expect((await runCli(['hdbscan', csv, '--format', 'npy', '-o', out, ...cpu])).code).toBe(0);
    for (const k of ['sources', 'targets', 'weights']) expect(npyShape(join(out, `mst_${k}.npy`))).toEqual([n - 1]);
  });

  it('stats: json counts are numEdges and numBranches', async () => {
    const j = JSON.parse((await runCli(['stats', csv, ...cpu])).stdout);
    expect(j.numEdges).toBe(n - 1);
    expect(j.numBranches).toBeGreaterThan(0);
    expect(j).not.toHaveProperty('edges');
    expect(j).not.toHaveProperty('branches');
  });
});

describe('issue 15: messages', () => {
  it('mst says which backend ran', async () => {
    const r = await runCli(['mst', graph, ...cpu]);
    expect(r.stderr).toMatch(
      /mst: 5 vertices, 4 edges → forest of 3 edges, total weight 8, 2 components \(cpu backend, [\d.]+ ms\)/,
    );
    // 'auto' on a tiny graph runs Kruskal on the CPU (below AUTO_GPU_MIN_EDGES) and says so.
    expect((await runCli(['mst', graph])).stderr).toMatch(/\(cpu backend, /);
  });

  it('counts of one read in the singular: "1 point", "1 edge", "1 vertex", "1 component", "1 cluster"', async () => {
    const one = writePointsCsv(join(dir, 'one.csv'), [1, 2], 2);
    const e = await runCli(['emst', one, ...cpu]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stderr).toMatch(/emst: 1 point × 2 → EMST of 0 edges/);
    const two = writePointsCsv(join(dir, 'two.csv'), [1, 2, 3, 4], 2);
    expect((await runCli(['emst', two, ...cpu])).stderr).toMatch(/emst: 2 points × 2 → EMST of 1 edge,/);
    const edge = join(dir, 'edge.txt');
    writeFileSync(edge, '0 1 2\n');
    expect((await runCli(['mst', edge, ...cpu])).stderr).toMatch(
      /mst: 2 vertices, 1 edge → forest of 1 edge, total weight 2, 1 component /,
    );
    const h = await runCli(['hdbscan', one, '--min-cluster-size', '2', ...cpu]);
    expect(h.stderr).toMatch(/hdbscan: 1 point × 2, .*: 0 clusters/);
    const single = await runCli(['hdbscan', csv, '--min-cluster-size', '140', '--allow-single-cluster', ...cpu]);
    expect(single.stderr).toMatch(/: 1 cluster, /);
    const gen = await runCli(['generate', 'uniform', '-n', '1', '-o', join(dir, 'gen.csv')]);
    expect(gen.stderr).toMatch(/generate: 1 point × 2 \(uniform\)/);
  });
});

describe('issue 15: hdbscan --validity reports DBCV (relativeValidity)', () => {
  it('adds relativeValidity to the summary, JSON and npy, equal to relativeValidity(mst, labels)', async () => {
    const lib = await hdbscan(points, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      backend: 'cpu',
    });
    const want = relativeValidity(lib.mst!, lib.labels);
    expect(want).toBeGreaterThan(0);
    const r = await runCli(['hdbscan', csv, '--min-cluster-size', '10', '--validity', '--format', 'json', ...cpu]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.relativeValidity).toBeCloseTo(want, 12);
    expect(r.stderr).toMatch(new RegExp(`relative validity ${want.toPrecision(4).replace('.', '\\.')}`));
    const many = JSON.parse(
      (await runCli(['hdbscan', csv, '--min-cluster-size', '10,20', '--validity', '--format', 'json', ...cpu])).stdout,
    );
    expect(many.results.map((x: { relativeValidity: number }) => typeof x.relativeValidity)).toEqual([
      'number',
      'number',
    ]);
    expect(many.results[0].relativeValidity).toBeCloseTo(want, 12);
    const out = join(dir, 'validity-npy');
    expect(
      (await runCli(['hdbscan', csv, '--min-cluster-size', '10', '--validity', '--format', 'npy', '-o', out, ...cpu]))
        .code,
    ).toBe(0);
    const v = parseNpy(readFileSync(join(out, 'relative_validity.npy')));
    expect(v.shape).toEqual([]);
    expect(new Float64Array(new Uint8Array(v.data).buffer)[0]).toBeCloseTo(want, 12); // a copy: data may view a pooled Buffer
    // Without --validity nothing is computed or added.
    const plain = await runCli(['hdbscan', csv, '--min-cluster-size', '10', '--format', 'json', ...cpu]);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('relativeValidity');
    expect(plain.stderr).not.toMatch(/relative validity/);
  });
});
