/**
 * The host's check of Borůvka's split-traversal roots (issue 19; emst/nearestsplit.ts, emst/subtree_roots.wgsl):
 * subtree_roots.wgsl keeps at most ROOT_STRIDE − 1 roots a tree window and drops the rest (its count word still
 * grows), and nearest_split.wgsl reads no more than that — so a window that lost roots, or has none, would make the
 * traversal miss leaves silently. A valid BVH never gets there (at most 2·96 roots a window, and every window with
 * leaves has one); a broken one does (the H100's 3·10^8-point sort of session 11, primitives/radixsort.ts blockEnd).
 * checkSubtreeRoots makes it a loud error: one read-back of the roots once per run (boruvka.ts, after the first chunk
 * of rounds, which recorded the roots pass).
 */
import type { GpuContext } from '../gpu/context.js';
import { TreelineError } from '../errors.js';
import { ROOT_STRIDE, type SplitTraversal } from './nearestsplit.js';

/** Throws a TreelineError naming the first tree window of n points whose root count is not in [1, ROOT_STRIDE − 1]. */
export async function checkSubtreeRoots(ctx: GpuContext, split: SplitTraversal, n: number): Promise<void> {
  const { trees } = split.windows(n);
  const words = new Uint32Array(await ctx.read(split.roots, 0, 4 * ROOT_STRIDE * trees.length));
  trees.forEach((t, w) => {
    const count = words[w * ROOT_STRIDE];
    if (count < 1 || count > ROOT_STRIDE - 1) {
      throw new TreelineError(
        `emst::subtreeRoots: tree window ${w} (leaves ${t.first} … ${t.first + t.count - 1} of ${n}) has ${count} roots; expected 1 … ${ROOT_STRIDE - 1} (at most 2·96 in a valid BVH).`,
      );
    }
  });
}
