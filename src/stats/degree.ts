/**
 * MiSTree's first statistic: the degree of every node, the number of tree edges that touch it (0 for a node the
 * tree leaves isolated, as a scale cut can).
 */

/** The degree of each of the `n` nodes of the edge list `sources[i]`–`targets[i]`. */
export function nodeDegrees(n: number, sources: Uint32Array, targets: Uint32Array): Uint32Array {
  const degree = new Uint32Array(n);
  for (let e = 0; e < sources.length; e++) {
    degree[sources[e]]++;
    degree[targets[e]]++;
  }
  return degree;
}

/** How many nodes have each degree: counts[d] for d = 0 … max degree (empty for n = 0). */
export function degreeCounts(degree: Uint32Array): Uint32Array {
  let max = -1;
  for (let i = 0; i < degree.length; i++) if (degree[i] > max) max = degree[i];
  const counts = new Uint32Array(max + 1);
  for (let i = 0; i < degree.length; i++) counts[degree[i]]++;
  return counts;
}
