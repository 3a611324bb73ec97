// The page: takes the parameters from the form (first filled from the URL), clusters in a Web Worker (worker.js),
// draws the MST and the clusters on the canvas with a legend, and leaves the result on `window.treeline` (the
// browser test reads it). Pressing "Cluster" stores the parameters in the URL and runs again.
//
//   ?n=2000&clusters=4&seed=1&minClusterSize=15[&minSamples=…][&backend=auto|gpu|cpu]
const DEFAULTS = { n: 2000, clusters: 4, seed: 1, minClusterSize: 15, minSamples: '', backend: 'auto' };

const status = document.querySelector('#status');
const canvas = document.querySelector('canvas');
const form = document.querySelector('#controls');
const legend = document.querySelector('#legend');

// Tableau 10; noise (−1) is drawn small and grey.
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];
const NOISE = '#c8c8c8';

/** The form's values as hdbscan parameters (minSamples undefined when blank), or a message saying what is wrong. */
function readForm() {
  const f = new FormData(form);
  const int = (name) => Number(f.get(name));
  const params = {
    n: int('n'),
    clusters: int('clusters'),
    seed: int('seed'),
    minClusterSize: int('minClusterSize'),
    minSamples: f.get('minSamples') === '' ? undefined : int('minSamples'),
    backend: f.get('backend'),
  };
  for (const [name, min] of [
    ['n', 10],
    ['clusters', 1],
    ['seed', 0],
    ['minClusterSize', 2],
    ['minSamples', 1],
  ]) {
    const v = params[name];
    if (v !== undefined && !(Number.isInteger(v) && v >= min))
      return `${name} must be an integer ≥ ${min}, got ${f.get(name)}.`;
  }
  return params;
}

/** Fills the form from the URL (defaults for what it lacks). */
function fillForm() {
  const q = new URLSearchParams(location.search);
  for (const [name, fallback] of Object.entries(DEFAULTS)) form.elements[name].value = q.get(name) ?? fallback;
}

/** One entry per cluster (its colour and size) and one for noise. */
function drawLegend(labels, clusters) {
  const sizes = new Array(clusters).fill(0);
  let noise = 0;
  for (const l of labels) l < 0 ? noise++ : sizes[l]++;
  const entries = sizes.map((size, c) => ({ colour: PALETTE[c % PALETTE.length], text: `cluster ${c} (${size})` }));
  entries.push({ colour: NOISE, text: `noise (${noise})` });
  legend.replaceChildren(
    ...entries.map(({ colour, text }) => {
      const li = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colour;
      li.append(swatch, text);
      li.dataset.colour = colour;
      return li;
    }),
  );
}

function draw({ points, labels, sources, targets }) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 2) {
    x0 = Math.min(x0, points[i]);
    x1 = Math.max(x1, points[i]);
    y0 = Math.min(y0, points[i + 1]);
    y1 = Math.max(y1, points[i + 1]);
  }
  const pad = 16;
  const scale = Math.min((width - 2 * pad) / (x1 - x0 || 1), (height - 2 * pad) / (y1 - y0 || 1));
  const px = (i) => pad + (points[2 * i] - x0) * scale;
  const py = (i) => height - pad - (points[2 * i + 1] - y0) * scale;

  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  // MST edges: within a cluster in its colour, anything else in grey.
  ctx.lineWidth = 1;
  for (let e = 0; e < sources.length; e++) {
    const a = sources[e];
    const b = targets[e];
    const same = labels[a] === labels[b] && labels[a] >= 0;
    ctx.strokeStyle = same ? PALETTE[labels[a] % PALETTE.length] : NOISE;
    ctx.globalAlpha = same ? 0.6 : 0.8;
    ctx.beginPath();
    ctx.moveTo(px(a), py(a));
    ctx.lineTo(px(b), py(b));
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  for (let i = 0; i < labels.length; i++) {
    const noise = labels[i] < 0;
    ctx.fillStyle = noise ? NOISE : PALETTE[labels[i] % PALETTE.length];
    ctx.beginPath();
    ctx.arc(px(i), py(i), noise ? 1.5 : 2.5, 0, 2 * Math.PI);
    ctx.fill();
  }
}

let worker = null;

function run(params) {
  worker?.terminate();
  window.treeline = { done: false, params };
  legend.replaceChildren();
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => onResult(params, data);
  worker.onerror = (e) => {
    status.textContent = `Worker failed: ${e.message}`;
    window.treeline = { done: true, params, error: `worker: ${e.message}` };
  };
  status.textContent = `Clustering ${params.n} points…`;
  worker.postMessage(params);
}

function onResult(params, data) {
  if (data.type === 'progress') {
    status.textContent = `Clustering ${params.n} points… ${data.phase ? `${data.phase} ` : ''}${(100 * data.fraction).toFixed(0)} %`;
    return;
  }
  if (data.type === 'error') {
    status.textContent = `Failed: ${data.message}`;
    window.treeline = { done: true, params, error: data.message };
    worker.terminate();
    return;
  }
  draw(data);
  drawLegend(data.labels, data.clusters);
  const noise = data.labels.reduce((s, l) => s + (l < 0 ? 1 : 0), 0);
  const where =
    data.backend === 'gpu'
      ? `WebGPU (${[data.adapter.vendor, data.adapter.architecture, data.adapter.description].filter(Boolean).join(' ')})`
      : `the CPU backend${data.gpuNote ? ` (${data.gpuNote})` : ''}`;
  status.textContent = `${params.n} points: ${data.clusters} clusters, ${noise} noise — on ${where}, ${data.ms.toFixed(0)} ms.`;
  window.treeline = {
    done: true,
    params,
    backend: data.backend,
    adapter: data.adapter,
    gpuNote: data.gpuNote,
    clusters: data.clusters,
    noise,
    labels: Array.from(data.labels),
    palette: PALETTE,
    ms: data.ms,
    timings: data.timings,
  };
  worker.terminate();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const params = readForm();
  if (typeof params === 'string') {
    status.textContent = params;
    return;
  }
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  history.replaceState(null, '', `?${q}`);
  run(params);
});

fillForm();
const initial = readForm();
if (typeof initial === 'string') status.textContent = initial;
else run(initial);
