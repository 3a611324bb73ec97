// The partitioned EMST coordinator's per-point passes on one thread (issue 20, session 15): the 16-bit Morton digits
// from whole codes (mortonCodesCpu + codeDigit, the pass before) against mortonDigitsCpu, checked equal element by
// element, and the 3D bounds per axis against one pass over the rows. Needs `npm run build` first.
//   node bench/partition-passes.mjs [n = 2e7] [reps = 8]
import { mortonCodesCpu, mortonDigitsCpu, sceneFrameCpu } from '../dist/bvh/morton.cpu.js';
import { maxF, minF } from '../dist/bvh/floatorder.js';
import { codeDigit, digitShift } from '../dist/distributed/partition.js';

const n = Number(process.argv[2] ?? 2e7);
const reps = Number(process.argv[3] ?? 8);
const dim = 3;
const points = new Float32Array(n * dim);
let s = 1;
for (let i = 0; i < points.length; i++) {
  s = (Math.imul(s, 1103515245) + 12345) >>> 0;
  points[i] = s / 2 ** 32 - 0.5;
}
const frame = sceneFrameCpu(points, n, dim);
const shift = digitShift(63);
const PIECE = 1 << 16;
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const t = { codes: [], digits: [], axes: [], rows: [] };
for (let r = 0; r < reps; r++) {
  const a = new Uint16Array(n);
  const ca = new Uint32Array(65536);
  let t0 = performance.now();
  const into = new Uint32Array(2 * PIECE);
  for (let s0 = 0; s0 < n; s0 += PIECE) {
    const s1 = Math.min(s0 + PIECE, n);
    const codes = mortonCodesCpu(points.subarray(s0 * dim, s1 * dim), s1 - s0, dim, frame, into);
    for (let i = 0; i < s1 - s0; i++) {
      const d = codeDigit(codes, i, shift);
      a[s0 + i] = d;
      ca[d]++;
    }
  }
  t.codes.push(performance.now() - t0);
  const b = new Uint16Array(n);
  t0 = performance.now();
  mortonDigitsCpu(points, 0, n, dim, frame, b, new Uint32Array(65536));
  t.digits.push(performance.now() - t0);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) throw new Error(`digit ${i} differs: ${a[i]} against ${b[i]}`);
  t0 = performance.now();
  const lo = [];
  const hi = [];
  for (let ax = 0; ax < dim; ax++) {
    let mn = Infinity;
    let mx = -Infinity;
    for (let o = ax; o < n * dim; o += dim) {
      mn = minF(mn, points[o]);
      mx = maxF(mx, points[o]);
    }
    lo.push(mn);
    hi.push(mx);
  }
  t.axes.push(performance.now() - t0);
  t0 = performance.now();
  let m0 = Infinity;
  let m1 = Infinity;
  let m2 = Infinity;
  let x0 = -Infinity;
  let x1 = -Infinity;
  let x2 = -Infinity;
  for (let o = 0; o < 3 * n; o += 3) {
    m0 = minF(m0, points[o]);
    m1 = minF(m1, points[o + 1]);
    m2 = minF(m2, points[o + 2]);
    x0 = maxF(x0, points[o]);
    x1 = maxF(x1, points[o + 1]);
    x2 = maxF(x2, points[o + 2]);
  }
  t.rows.push(performance.now() - t0);
  if ([m0, m1, m2, x0, x1, x2].some((v, i) => v !== [...lo, ...hi][i])) throw new Error('bounds differ');
}
console.log(
  `n = ${n}, ${reps} reps, medians: digits from codes ${median(t.codes).toFixed(0)} ms, mortonDigitsCpu ` +
    `${median(t.digits).toFixed(0)} ms (equal); bounds per axis ${median(t.axes).toFixed(0)} ms, one pass over the rows ` +
    `${median(t.rows).toFixed(0)} ms`,
);
