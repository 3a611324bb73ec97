/**
 * ECL-MST's single filtering step (Fallin et al., SC'23, ../shared/seeds/000, §3.2 "filtering"; after Osipov et
 * al.'s Filter-Kruskal): estimate the weight w below which the c·|V| lightest edges lie from 20 deterministic
 * samples, run the parallel Kruskal/Borůvka rounds on the edges with weight ≤ w first, then on the heavier edges
 * that still join two different sets. As in ECL-MST's code (not its text, which says c = 4), c = 3, and filtering
 * is used only where the average degree (directed entries per vertex, rounded down) is at least 4.
 *
 * The samples are the weights at `hash(i) mod slots` for i < 20 (ECL's integer hash), compared by their u32 keys.
 * The GPU samples the same slots (shaders/graph/threshold.wgsl); `sampleThreshold` below is its CPU twin. The
 * threshold only moves work between the phases: the forest is the same for every threshold.
 */

const SAMPLE_COUNT = 20;
/** ECL-MST's c: the light phase aims at the c·|V| lightest edges. */
export const FILTER_C = 3;

/** ECL-MST's sample hash (an integer mixer from a well-known Stack Overflow answer). */
export function sampleHash(i: number): number {
  let v = i >>> 0;
  v = Math.imul((v >>> 16) ^ v, 0x45d9f3b) >>> 0;
  v = Math.imul((v >>> 16) ^ v, 0x45d9f3b) >>> 0;
  return ((v >>> 16) ^ v) >>> 0;
}

export interface FilterPlan {
  /** Whether the light/heavy split is used. */
  filter: boolean;
  /** How many weights are sampled (min(slots, 20)). */
  samples: number;
  /** Which of the sorted samples is the threshold. */
  pick: number;
}

/**
 * Decides on filtering and which sample is the threshold. `slots`: the edge-id count (edge-list entries or CSR
 * entries); `directed`: the directed-entry count (CSR: its entries; edge list: twice its edges).
 * `mode` 'on'/'off' forces the decision (tests use it to run both paths on small graphs); `c` moves the threshold
 * (GraphMsfOptions.filterC: the forest is the same for every c, only the phases' sizes change).
 */
export function filterPlan(
  numVertices: number,
  slots: number,
  directed: number,
  mode: 'auto' | 'on' | 'off' = 'auto',
  c: number = FILTER_C,
): FilterPlan {
  const samples = Math.min(slots, SAMPLE_COUNT);
  if (samples === 0 || numVertices === 0 || mode === 'off') return { filter: false, samples, pick: 0 };
  const auto = Math.floor(directed / numVertices) >= 4;
  const pick = Math.min(samples - 1, Math.floor((c * numVertices * samples) / directed));
  return { filter: mode === 'on' || auto, samples, pick };
}

/** The threshold key: the `pick`-th smallest key among the sampled slots (the CPU twin of the GPU kernel). */
export function sampleThreshold(keys: Uint32Array, plan: FilterPlan): number {
  const s: number[] = [];
  for (let i = 0; i < plan.samples; i++) s.push(keys[sampleHash(i) % keys.length]);
  s.sort((a, b) => a - b);
  return s[plan.pick];
}
