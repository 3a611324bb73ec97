// The page: reads the parameters from the URL, clusters in a Web Worker (worker.js), draws the MST and the clusters
// on the canvas, and leaves the result on `window.treeline` (the browser test reads it).
//
//   ?n=2000&clusters=4&seed=1&minClusterSize=15[&minSamples=…][&backend=auto|gpu|cpu]
const q = new URLSearchParams(location.search);
const int = (name, fallback) => (q.has(name) ? Number.parseInt(q.get(name), 10) : fallback);
const params = {
  n: int('n', 2000),
  clusters: int('clusters', 4),
  seed: int('seed', 1),
  minClusterSize: int('minClusterSize', 15),
  minSamples: q.has('minSamples') ? int('minSamples') : undefined,
  backend: q.get('backend') ?? 'auto',
};

const status = document.querySelector('#status');
const canvas = document.querySelector('canvas');
window.treeline = { done: false, params };

// Tableau 10; noise (−1) is drawn small and grey.
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const NOISE = '#c8c8c8';

function draw({ points, labels, sources, targets }) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i += 2) {
    x0 = Math.min(x0, points[i]); x1 = Math.max(x1, points[i]);
    y0 = Math.min(y0, points[i + 1]); y1 = Math.max(y1, points[i + 1]);
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

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = ({ data }) => {
  if (data.type === 'progress') {
    status.textContent = `Clustering ${params.n} points… ${(100 * data.fraction).toFixed(0)} %`;
    return;
  }
  if (data.type === 'error') {
    status.textContent = `Failed: ${data.message}`;
    window.treeline = { done: true, params, error: data.message };
    worker.terminate();
    return;
  }
  draw(data);
  const noise = data.labels.reduce((s, l) => s + (l < 0 ? 1 : 0), 0);
  const where = data.backend === 'gpu'
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
};
worker.onerror = (e) => {
  status.textContent = `Worker failed: ${e.message}`;
  window.treeline = { done: true, params, error: `worker: ${e.message}` };
};
status.textContent = `Clustering ${params.n} points…`;
worker.postMessage(params);
