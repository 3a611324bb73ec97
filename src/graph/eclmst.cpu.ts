/**
 * The CPU twin of the GPU graph MSF (`eclmst.ts`, shaders/graph/*.wgsl): the same phases, rounds and worklists,
 * run sequentially, so that tests can compare not only the forest but the size of every round's worklist — a
 * quantity that depends only on the partition after each round, never on thread timing.
 *
 * ECL-MST, Fallin et al., SC'23 (../shared/seeds/000), Algorithm 2: populate a worklist with the edges of the
 * phase (one direction only), then repeat: drop the edges whose endpoints are now in one set and store the others
 * with their endpoints replaced by the set representatives (implicit path compression); record in each set the
 * lightest edge by (weight key, edge id); join along every edge recorded in either endpoint's set.
 */
import { UnionFind } from '../unionfind/unionfind.cpu.js';
import { weightKeys } from './keys.js';
import { candidateIds } from './kruskal.js';
import { sortIdsByKey } from './order.js';
import { csrRows } from './result.js';
import { filterPlan, sampleThreshold } from './threshold.js';
import type { NormalGraph } from './validate.js';

export interface EclTrace {
  /** The threshold key, or null without filtering. */
  threshold: number | null;
  /** Per phase (one without filtering; light then heavy with it): the worklist size after each round's filter. */
  rounds: number[][];
}

export interface EclCpuResult {
  /** Forest edge ids in canonical (weight key, id) order. */
  ids: Uint32Array;
  /** Each vertex's smallest set member. */
  labels: Uint32Array;
  trace: EclTrace;
}

const NONE = 0xffffffff;

export function eclMstCpu(
  g: NormalGraph,
  options: { filter?: 'auto' | 'on' | 'off'; filterC?: number } = {},
): EclCpuResult {
  const n = g.numVertices;
  const keys = weightKeys(g.weights, g.weightKind);
  const directed = g.kind === 'csr' ? g.idCount : 2 * g.idCount;
  const plan = filterPlan(n, g.idCount, directed, options.filter, options.filterC);
  const threshold = plan.filter ? sampleThreshold(keys, plan) : null;
  const rows = g.kind === 'csr' ? csrRows(g.offsets, g.idCount) : null;
  const src = g.kind === 'edges' ? g.sources : rows!;
  const dst = g.kind === 'edges' ? g.targets : g.neighbours;
  const uf = new UnionFind(n);
  const minKey = new Uint32Array(n).fill(NONE);
  const minId = new Uint32Array(n).fill(NONE);
  const forest: number[] = [];
  const rounds: number[][] = [];
  const candidates = candidateIds(g);
  const phases = threshold === null ? ['all'] : ['light', 'heavy'];
  for (const phase of phases) {
    // Populate: the phase's edges, as (rep, rep, id); the light phase and the unfiltered one start from singletons.
    let wl: number[] = [];
    for (const id of candidates) {
      const k = keys[id];
      if (phase === 'light' && k > threshold!) continue;
      if (phase === 'heavy' && k <= threshold!) continue;
      const p = uf.find(src[id]);
      const q = uf.find(dst[id]);
      if (p !== q) wl.push(p, q, id);
    }
    const sizes: number[] = [];
    for (let round = 1; ; round++) {
      if (round > 1) {
        const next: number[] = [];
        for (let i = 0; i < wl.length; i += 3) {
          const p = uf.find(wl[i]);
          const q = uf.find(wl[i + 1]);
          if (p !== q) next.push(p, q, wl[i + 2]);
        }
        wl = next;
      }
      sizes.push(wl.length / 3);
      if (wl.length === 0) break;
      for (let i = 0; i < wl.length; i += 3) {
        const id = wl[i + 2];
        for (const s of [wl[i], wl[i + 1]]) {
          if (keys[id] < minKey[s] || (keys[id] === minKey[s] && id < minId[s])) {
            minKey[s] = keys[id];
            minId[s] = id;
          }
        }
      }
      for (let i = 0; i < wl.length; i += 3) {
        const id = wl[i + 2];
        if (minId[wl[i]] === id || minId[wl[i + 1]] === id) {
          if (uf.union(wl[i], wl[i + 1])) forest.push(id);
        }
      }
      for (let i = 0; i < wl.length; i += 3) {
        minKey[wl[i]] = minKey[wl[i + 1]] = NONE;
        minId[wl[i]] = minId[wl[i + 1]] = NONE;
      }
    }
    rounds.push(sizes);
  }
  const ids = Uint32Array.from(forest).sort();
  const fkeys = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) fkeys[i] = keys[ids[i]];
  sortIdsByKey(ids, fkeys);
  return { ids, labels: uf.labels(), trace: { threshold, rounds } };
}
