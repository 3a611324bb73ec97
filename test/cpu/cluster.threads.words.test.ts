/**
 * Issue 17: the GPU-resident pipeline's selection and labelling on worker threads (pointResults.threads.ts,
 * clusterPointsOnWorkers): one worker selects, the others label ranges of points from their own rows and list ranges of
 * rows' exemplar candidates, the label counts added atomically, then one worker groups the exemplars — bit for bit
 * what one thread gives (selectClusters, then pointResults over the rows with an ExemplarCollector), on seeded random
 * condensed trees with ties and every selection option whose labelling differs. The worker script is bundled from
 * the sources (test/helpers/workers.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ClusterTreeInfo } from '../../src/cluster/clusterTree.js';
import { condensedFromRows } from '../../src/cluster/condense.finish.js';
import { packMerges } from '../../src/cluster/condense.rows.js';
import { condenseRowsCpu } from '../../src/cluster/condense.rows.cpu.js';
import { ExemplarCollector } from '../../src/cluster/exemplars.js';
import { resolveClusterOptions } from '../../src/cluster/options.js';
import { pointResults } from '../../src/cluster/pointResults.js';
import { clusterPointsOnWorkers, pointThreadStats } from '../../src/cluster/pointResults.threads.js';
import { selectClusters } from '../../src/cluster/select.js';
import { linkageOf, randomTree, type TreeShape } from '../helpers/condenseCases.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-cluster-words-');

const shapes: TreeShape[] = ['random', 'caterpillar', 'blobs'];
const shared = <T extends Int32Array | Float64Array | Uint32Array>(make: (b: SharedArrayBuffer) => T, bytes: number) =>
  make(new SharedArrayBuffer(bytes));

/** The cluster facts in shared memory (as condensing on threads makes them). */
function shareFacts(info: ClusterTreeInfo): ClusterTreeInfo {
  const copy = <T extends Int32Array | Uint32Array | Float64Array>(a: T): T => {
    const b = new (a.constructor as new (s: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
    b.set(a);
    return b;
  };
  return {
    ...info,
    parent: copy(info.parent),
    birth: copy(info.birth),
    size: copy(info.size),
    firstChild: copy(info.firstChild),
    maxLambda: copy(info.maxLambda),
  };
}

describe('selection and labelling from point words on worker threads', () => {
  it('equals the one-thread pass over the rows: labels, probabilities, GLOSH, persistence, exemplars', async () => {
    let seed = 900;
    for (const shape of shapes) {
      for (const n of [5, 1200, 6000]) {
        for (const o of [
          { minClusterSize: 5 },
          { minClusterSize: 3, clusterSelectionMethod: 'leaf' as const },
          { minClusterSize: 4, allowSingleCluster: true, clusterSelectionEpsilon: 0.3 },
          { minClusterSize: 4, clusterSelectionEpsilon: 0.05 },
        ]) {
          for (const withExemplars of [true, false]) {
            const tag = `${shape} n=${n} ${JSON.stringify(o)} exemplars ${withExemplars}`;
            const linkage = linkageOf(randomTree(n, seed++, shape, 'ties'), n);
            const rows = condenseRowsCpu(packMerges(linkage), n, o.minClusterSize);
            const condensed = condensedFromRows(rows, n, { shared: true });
            const { tree } = condensed;
            const info = shareFacts(condensed.info);
            const stability = shared((b) => new Float64Array(b), 8 * condensed.stability.length);
            stability.set(condensed.stability);
            const words = shared((b) => new Uint32Array(b), 8 * n);
            for (let r = 0; r < rows.length / 4; r++) {
              if (rows[4 * r + 1] < n) words.set([rows[4 * r], rows[4 * r + 2]], 2 * rows[4 * r + 1]);
            }
            const resolved = resolveClusterOptions(o);
            const { selected, stability: after } = selectClusters(info, stability, resolved);
            const collector = new ExemplarCollector(info.firstChild, info.maxLambda, selected, n);
            const want = pointResults(tree, info, selected, after, resolved, collector);
            const into = {
              labels: shared((b) => new Int32Array(b), 4 * n),
              probabilities: shared((b) => new Float64Array(b), 8 * n),
              outlierScores: shared((b) => new Float64Array(b), 8 * n),
            };
            const runs = pointThreadStats.runs;
            const got = await clusterPointsOnWorkers(
              tree,
              info,
              stability,
              resolved,
              withExemplars,
              { words, scale: 1 },
              into,
              4,
              2,
            );
            expect(got, tag).not.toBeNull();
            expect(pointThreadStats.runs, tag).toBe(runs + 1);
            expect(Array.from(got!.selected), tag).toEqual(Array.from(selected));
            expect(Array.from(got!.stability), tag).toEqual(Array.from(after));
            expect(Array.from(got!.labels), tag).toEqual(Array.from(want.labels));
            expect(Array.from(got!.probabilities), tag).toEqual(Array.from(want.probabilities));
            expect(Array.from(got!.outlierScores), tag).toEqual(Array.from(want.outlierScores));
            expect(Array.from(got!.persistence), tag).toEqual(Array.from(want.persistence));
            if (withExemplars) {
              expect(
                got!.exemplars!.map((e) => Array.from(e)),
                tag,
              ).toEqual(collector.result().map((e) => Array.from(e)));
            } else expect(got!.exemplars, tag).toBeUndefined();
          }
        }
      }
    }
  });

  it('answers null where the arrays are not shared (the caller then labels on its own thread)', async () => {
    const n = 50;
    const linkage = linkageOf(randomTree(n, 7, 'random', 'ties'), n);
    const rows = condenseRowsCpu(packMerges(linkage), n, 5);
    const { tree, info, stability } = condensedFromRows(rows, n);
    const resolved = resolveClusterOptions({ minClusterSize: 5 });
    const into = { labels: new Int32Array(n), probabilities: new Float64Array(n), outlierScores: new Float64Array(n) };
    const words = new Uint32Array(2 * n);
    const got = await clusterPointsOnWorkers(tree, info, stability, resolved, true, { words, scale: 1 }, into, 4, 2);
    expect(got).toBeNull();
  });
});
