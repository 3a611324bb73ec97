/**
 * Seeded point clouds for the BVH and k-NN tests: the five shapes (uniform, normal, clustered,
 * all-duplicate, collinear) plus integer grids (exact distances, many ties).
 */
import { blobs, normal, uniform } from '../../src/datasets/generate.js';
import { mulberry32 } from './random.js';

export type CloudKind = 'uniform' | 'normal' | 'clustered' | 'duplicates' | 'collinear' | 'grid';
export const CLOUD_KINDS: CloudKind[] = ['uniform', 'normal', 'clustered', 'duplicates', 'collinear'];

/** n × dim points of the given shape, deterministic in (kind, n, dim, seed). */
export function cloud(kind: CloudKind, n: number, dim: number, seed = 1): Float32Array {
  switch (kind) {
    case 'uniform':
      return uniform({ n, dim, seed });
    case 'normal':
      return normal({ n, dim, seed });
    case 'clustered':
      return blobs({ n, dim, seed, clusters: 7, noise: 0.02 });
    case 'duplicates': {
      const r = mulberry32(seed);
      const p = Array.from({ length: dim }, () => r() * 10 - 5);
      const out = new Float32Array(n * dim);
      for (let i = 0; i < n; i++) for (let a = 0; a < dim; a++) out[i * dim + a] = p[a];
      return out;
    }
    case 'collinear': {
      // x = c + t·v with random t: a line in general direction (and some exact repeats of t).
      const r = mulberry32(seed);
      const c = Array.from({ length: dim }, () => r() * 2 - 1);
      const v = Array.from({ length: dim }, () => r() * 2 - 1);
      const out = new Float32Array(n * dim);
      for (let i = 0; i < n; i++) {
        const t = i % 17 === 3 ? 0.5 : r() * 100 - 50;
        for (let a = 0; a < dim; a++) out[i * dim + a] = c[a] + t * v[a];
      }
      return out;
    }
    case 'grid': {
      const r = mulberry32(seed);
      const out = new Float32Array(n * dim);
      for (let i = 0; i < out.length; i++) out[i] = Math.floor(r() * 8) - 4;
      return out;
    }
  }
}
