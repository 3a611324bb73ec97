// The 'pairs' method's Kruskal on the coordinator (issue 20, partition.pairs.ts): C candidate edges between random
// points of n, each point labelled by one of L labels (global ids: the contracted components), three ways, each
// repetition on fresh n-word arrays whose pages were taken beforehand (as the coordinator takes them while the forests
// compute):
//
//   over labels       the union-find over the labels themselves (parents: n words at random) — before this commit
//   rank in tail      each end's label ranked into a dense id in the tail (two n-word arrays at random), then the
//                     union-find over the ids
//   dense at intake   labels numbered as the forests' replies arrive (DenseLabels; "intake": all of them, off the
//                     tail but for the last forests), the tail reading one n-word array (denseEnds) and the union-find
//                     over the ids (kruskalDense) — partition.pairs.ts now
//
// The three choose the same edges (checked). Self-contained (no dist/): the loops as partition.pairs.ts has them.
//   node bench/kruskal-dense.mjs [n = 2e8] [C = 1e6] [L = 1e6] [reps = 3]
const [n, C, L, reps] = [2e8, 1e6, 1e6, 3].map((d, i) => Number(process.argv[2 + i] ?? d));
let seed = 1;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const labelOf = new Uint32Array(n);
const labelIds = Uint32Array.from({ length: L }, () => Math.floor(rand() * n));
const lo = new Uint32Array(C);
const hi = new Uint32Array(C);
for (let e = 0; e < C; e++) {
  lo[e] = Math.floor(rand() * (n - 1));
  hi[e] = lo[e] + 1 + Math.floor(rand() * (n - 1 - lo[e]));
}
for (let e = 0; e < C; e++) {
  labelOf[lo[e]] = 1 + labelIds[Math.floor(rand() * L)];
  labelOf[hi[e]] = 1 + labelIds[Math.floor(rand() * L)];
}
const end = (e) => ((e & 1) === 0 ? lo[e >>> 1] : hi[e >>> 1]);
const touched = () => {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i += 1024) a[i] = 0;
  return a;
};
/** Kruskal over C edges whose end j is id(j), parents in `up` (1 + parent, 0: a root): the chosen count. */
function kruskal(up, id) {
  const root = (i) => {
    for (;;) {
      const p = up[i];
      if (p === 0) return i;
      const above = up[p - 1];
      if (above === 0) return p - 1;
      up[i] = above;
      i = above - 1;
    }
  };
  let count = 0;
  for (let e = 0; e < C; e++) {
    const a = root(id(2 * e));
    const b = root(id(2 * e + 1));
    if (a === b) continue;
    if (a < b) up[b] = a + 1;
    else up[a] = b + 1;
    count++;
  }
  return count;
}
for (let r = 0; r < reps; r++) {
  const parent = touched();
  let t = performance.now();
  const c0 = kruskal(parent, (j) => labelOf[end(j)] - 1);
  const over = performance.now() - t;

  const rankOf = touched();
  t = performance.now();
  let k1 = 0;
  const ends1 = new Uint32Array(2 * C);
  for (let j = 0; j < 2 * C; j++) {
    const l = labelOf[end(j)] - 1;
    let d = rankOf[l];
    if (d === 0) rankOf[l] = d = ++k1;
    ends1[j] = d - 1;
  }
  const c1 = kruskal(new Uint32Array(k1), (j) => ends1[j]);
  const rank = performance.now() - t;

  const denseOf = touched();
  const ids = touched();
  t = performance.now();
  let k2 = 0;
  for (let j = 0; j < 2 * C; j++) {
    const g = end(j);
    const l = labelOf[g] - 1;
    let d = ids[l];
    if (d === 0) ids[l] = d = ++k2;
    denseOf[g] = d;
  }
  const intake = performance.now() - t;
  t = performance.now();
  const ends2 = new Uint32Array(2 * C);
  for (let j = 0; j < 2 * C; j++) ends2[j] = denseOf[end(j)] - 1;
  const c2 = kruskal(new Uint32Array(k2), (j) => ends2[j]);
  const tail = performance.now() - t;
  if (c0 !== c1 || c0 !== c2) throw new Error(`chosen ${c0}, ${c1}, ${c2}`);
  console.log(
    `n = ${n}, ${C} edges, ${k2} labels: over labels ${over.toFixed(0)} ms; rank in tail ${rank.toFixed(0)} ms; ` +
      `dense at intake: tail ${tail.toFixed(0)} ms, intake ${intake.toFixed(0)} ms; chosen ${c0}`,
  );
}
