/**
 * issue 16: the public surface is a written list. `treeline` (src/index.ts) exports what users call and
 * `treeline/kernels` (src/kernels.ts) the building blocks; a name added to either must be added here and to the
 * README's API section, so the surface cannot grow silently.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

const PUBLIC = {
  values: [
    'TreelineError',
    'InputError',
    'GpuUnavailableError',
    'GpuError',
    'GpuDeviceLostError',
    'AbortError',
    'createGpuContext',
    'GpuContext',
    'emst',
    'hdbscan',
    'hdbscanModel',
    'hdbscanSweep',
    'clusterFromMst',
    'clusterFromSingleLinkage',
    'canonicalMst',
    'singleLinkage',
    'exemplars',
    'approximatePredict',
    'membershipVector',
    'allPointsMembershipVectors',
    'relativeValidity',
    'dbscanClustering',
    'clusterCenters',
    'createModel',
    'saveModel',
    'loadModel',
    'graphMst',
    'knn',
    'coreDistances',
    'generate',
    'GENERATORS',
    'uniform',
    'normal',
    'blobs',
    'moons',
    'visualVar',
    'cosmology',
    'mstStats',
    'binsOf',
    'STAT_NAMES',
    'compareStats',
    'compareCatalogues',
    'subsample',
    'jitter',
    'realisationStats',
    'realisationPoints',
    'mstPlotSvg',
    'condensedTreeSvg',
    'dendrogramSvg',
    'scatterSvg',
    'spanningTreeSvg',
    'labelColour',
  ],
  types: [
    'GpuContextOptions',
    'GpuFeatures',
    'AdapterDescription',
    'MemoryStats',
    'EmstOptions',
    'EmstResult',
    'EmstBackend',
    'EdgeList',
    'HdbscanOptions',
    'HdbscanResult',
    'SweepClustering',
    'HdbscanModel',
    'ApproximatePrediction',
    'DbscanOptions',
    'CenterKind',
    'ClusterCenters',
    'ClusterCentersInput',
    'MstEdges',
    'SingleLinkageTree',
    'CondensedTree',
    'ClusterOptions',
    'ClusterResult',
    'Graph',
    'EdgeListGraph',
    'CsrGraph',
    'GraphMstResult',
    'GraphMstOptions',
    'KnnResult',
    'KnnOptions',
    'CoreDistanceOptions',
    'GeneratorName',
    'GenerateOptions',
    'MstStats',
    'MstStatsOptions',
    'StatsCoords',
    'BinSpec',
    'MstBins',
    'Histogram',
    'MstHistograms',
    'StatName',
    'CompareOptions',
    'StatsComparison',
    'StatComparison',
    'Chi2',
    'StatChi2',
    'JointChi2',
    'CatalogueRatio',
    'CatalogueComparison',
    'SubsampleOptions',
    'Subsample',
    'JitterOptions',
    'RealisationStatsOptions',
    'RealisationStats',
    'RealisationMoments',
    'RealisationTask',
    'RunRealisation',
    'MstPlotInput',
    'MstTreePanel',
    'CondensedTreePlotOptions',
    'DendrogramPlotOptions',
    'PointsPlotOptions',
    'PlotEdges',
  ],
};

const KERNELS = {
  values: [
    'buildBvh',
    'buildBvhCpu',
    'createUnionFind',
    'unionFindLabels',
    'UnionFind',
    'unionFindLabelsCpu',
    'createScanner',
    'scanU32',
    'scanU32Cpu',
    'createReducer',
    'reduce',
    'reduceCpu',
    'reduceIdentity',
    'createCompactor',
    'compact',
    'compactCpu',
    'createRadixSorter',
    'sortPairs',
    'sortPairsCpu',
    'Timer',
    'mstHistograms',
  ],
  types: [
    'GpuBvh',
    'BvhCpu',
    'GpuUnionFind',
    'Scanner',
    'ScanMode',
    'ScannerOptions',
    'PrimitiveOptions',
    'BlockShape',
    'Reducer',
    'ReduceOp',
    'ReduceType',
    'Compactor',
    'RadixSorter',
    'RadixSorterOptions',
    'TimerEntry',
    'MstValues',
  ],
};

/** The names an entry file exports, read from its `export { … } from …` statements (the only kind it may hold). */
function declared(file: string): { values: string[]; types: string[]; other: string[] } {
  const source = ts.createSourceFile(file, readFileSync(`${root}/${file}`, 'utf8'), ts.ScriptTarget.Latest);
  const values: string[] = [];
  const types: string[] = [];
  const other: string[] = [];
  for (const statement of source.statements) {
    const exported =
      ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const e of statement.exportClause.elements)
        (statement.isTypeOnly || e.isTypeOnly ? types : values).push(e.name.text);
    } else if (ts.isExportDeclaration(statement) || ts.isExportAssignment(statement) || exported) {
      // `export *` and local declarations would let the surface grow without a name here.
      other.push(statement.getText(source).slice(0, 60));
    }
  }
  return { values, types, other };
}

/** The README's API section: from `## API` to the next `## ` heading. */
function apiSection(): string {
  const readme = readFileSync(`${root}/README.md`, 'utf8');
  const start = readme.indexOf('\n## API\n');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}

describe.each([
  ['treeline', 'src/index.ts', PUBLIC, () => import('../../src/index.js')],
  ['treeline/kernels', 'src/kernels.ts', KERNELS, () => import('../../src/kernels.js')],
] as const)('%s (%s)', (name, file, expected, load) => {
  it('exports exactly the written list of values and types, each once, and nothing through export *', () => {
    const got = declared(file);
    expect(got.other).toEqual([]);
    expect([...got.values].sort()).toEqual([...expected.values].sort());
    expect([...got.types].sort()).toEqual([...expected.types].sort());
    expect(new Set([...got.values, ...got.types]).size).toBe(got.values.length + got.types.length);
  });

  it('has at run time exactly the written values', async () => {
    expect(Object.keys(await load()).sort()).toEqual([...expected.values].sort());
  });

  it("is listed in the README's API section, name by name", () => {
    const section = apiSection();
    expect(section).toContain(`\`${name}\``);
    const missing = [...expected.values, ...expected.types].filter((n) => !section.includes(`\`${n}\``));
    expect(missing).toEqual([]);
  });
});

it('treeline and treeline/kernels share no name', () => {
  const shared = [...PUBLIC.values, ...PUBLIC.types].filter((n) => [...KERNELS.values, ...KERNELS.types].includes(n));
  expect(shared).toEqual([]);
});

it("treeline's Node entry (src/node.ts) has treeline's values and registers emst()'s `cluster` runner (the coordinator)", async () => {
  const node = await import('../../src/node.js');
  expect(Object.keys(node).sort()).toEqual([...PUBLIC.values].sort());
  // Registered: the call reaches the coordinator, which names the server it cannot reach (not the missing entry).
  const points = new Float32Array([0, 0, 1, 1, 2, 2]);
  await expect(node.emst(points, { dim: 2, cluster: { url: 'nats://127.0.0.1:1' } })).rejects.toThrow(
    /Cannot connect to the NATS server at nats:\/\/127\.0\.0\.1:1/,
  );
});
