/**
 * What both graph-MSF paths (eclmst.ts, and eclsplit.ts on split arrays) read back from their state words
 * (graph/common.wgsl's layout): the per-round worklist sizes, the threshold and the forest, checked.
 */
import type { GpuContext } from '../gpu/context.js';
import type { EclTrace } from './eclmst.cpu.js';
import type { FilterPlan } from './threshold.js';

/** Rounds that suffice for one phase on n vertices: ⌊log2 n⌋ + 1 (see eclmst.ts's header). */
export function roundsFor(n: number): number {
  return n < 2 ? 1 : Math.floor(Math.log2(n)) + 1;
}

/** The threshold and per-round worklist sizes from the state words (graph/common.wgsl's layout). */
export function traceFromState(
  state: Uint32Array,
  plan: FilterPlan,
  rounds: number,
  slots: number,
  numVertices: number,
): EclTrace {
  const phases = slots === 0 || numVertices < 2 ? 0 : plan.filter ? 2 : 1;
  const out: number[][] = [];
  for (let p = 0; p < phases; p++) out.push(Array.from(state.subarray(8 + 64 * p + 1, 8 + 64 * p + 1 + rounds)));
  return { threshold: plan.filter && phases > 0 ? state[3] : null, rounds: out };
}

/** The forest's edge ids (unordered) after checking the run's invariants: no overflow, every phase's last round empty. */
export async function forestFromState(
  ctx: GpuContext,
  state: Uint32Array,
  forest: GPUBuffer,
  forestCap: number,
  trace: EclTrace,
): Promise<Uint32Array> {
  const last = trace.rounds.map((r) => r[r.length - 1]);
  if (state[4] !== 0 || last.some((c) => c !== 0) || state[2] > forestCap) {
    throw new Error(
      `graph::msf: internal error: overflow=${state[4]}, last round sizes ${last.join(',')}, forest ${state[2]} > ${forestCap}.`,
    );
  }
  const count = state[2];
  return count === 0 ? new Uint32Array(0) : new Uint32Array(await ctx.read(forest, 0, 4 * count));
}
