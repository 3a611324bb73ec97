/**
 * The CPU backend's k-nearest-neighbour lists (src/knn/neighbours.cpu.ts) against brute force: exactly the k
 * smallest (key, original index) pairs, in that order, with keys computed as DESIGN.md says. The lists decide
 * Borůvka's edges without a traversal, so they must be exact, ties included.
 */
import { describe, expect, it } from 'vitest';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { nearestNeighbours } from '../../src/knn/neighbours.cpu.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';

const f32 = Math.fround;

function bruteLists(p: Float32Array, dim: number, k: number): { idx: number[][]; key: number[][] } {
  const n = p.length / dim;
  const idx: number[][] = [];
  const key: number[][] = [];
  for (let i = 0; i < n; i++) {
    const all: [number, number][] = [];
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      let s = 0;
      for (let a = 0; a < dim; a++) {
        const t = f32(p[i * dim + a] - p[j * dim + a]);
        s = f32(s + f32(t * t));
      }
      all.push([s, j]);
    }
    all.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    idx.push(all.slice(0, k).map((e) => e[1]));
    key.push(all.slice(0, k).map((e) => e[0]));
  }
  return { idx, key };
}

describe('nearestNeighbours(bvh, k) against brute force', () => {
  const kinds: CloudKind[] = ['uniform', 'normal', 'clustered', 'grid', 'duplicates', 'collinear'];
  for (const kind of kinds) {
    it(`${kind}: the k smallest (key, index) pairs in order, d = 1, 2, 3, 5, 16`, () => {
      for (const dim of [1, 2, 3, 5, 16]) {
        for (const k of [1, 3, 8, 15]) {
          const n = 150 + 7 * dim;
          const p = cloud(kind, n, dim, 31 * dim + k);
          const bvh = buildBvhCpu(p, dim);
          const lists = nearestNeighbours(bvh, k);
          const want = bruteLists(p, dim, k);
          for (let pos = 0; pos < n; pos++) {
            const i = bvh.order[pos];
            const got = Array.from(lists.points.subarray(pos * k, pos * k + k), (q) => bvh.order[q]);
            const keys = Array.from(lists.keys.subarray(pos * k, pos * k + k));
            expect([kind, dim, k, i, got, keys]).toEqual([kind, dim, k, i, want.idx[i], want.key[i]]);
          }
        }
      }
    });
  }

  it('issue 4 regression: duplicates whose Morton codes collide with other points (d = 16) are all found', () => {
    // 4 bits per axis in 16D: distinct points share codes, so a subtree split among equal codes is not a Morton
    // cell, and a duplicate of the query may lie in its box without being in it (the climb must not stop there).
    const dim = 16;
    const n = 368;
    const p = cloud('collinear', n, dim, 16016);
    const bvh = buildBvhCpu(p, dim);
    const lists = nearestNeighbours(bvh, 8);
    const want = bruteLists(p, dim, 8);
    for (let pos = 0; pos < n; pos++) {
      const got = Array.from(lists.points.subarray(pos * 8, pos * 8 + 8), (q) => bvh.order[q]);
      expect(got).toEqual(want.idx[bvh.order[pos]]);
    }
  });
});
