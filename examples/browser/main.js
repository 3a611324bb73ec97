// The page: takes the parameters from the form (first filled from the URL), clusters in a Web Worker (worker.js),
// draws the MST and the clusters on the canvas with a legend, shows the condensed tree beside it (the worker's
// condensedTreeSvg, selected clusters ringed in the canvas's colours), and leaves the result on `window.treeline`
// (the browser test reads it). Pressing "Cluster" stores the parameters in the URL and runs again.
//
//   ?n=2000&clusters=4&seed=1&minClusterSize=15[&minSamples=…][&backend=auto|gpu|cpu]
//
// A .csv or .npy file dropped on the page (or picked with the file input) replaces the generated points (data.js
// reads it; the first two columns are drawn, all numeric columns clustered); the URL then says source=file, and
// "Cluster" re-runs on the file until "Use generated data" is pressed. A file that cannot be read leaves the last
// picture and says on the page what was wrong with it.
import { parseDataFile } from './data.js';

const DEFAULTS = { n: 2000, clusters: 4, seed: 1, minClusterSize: 15, minSamples: '', backend: 'auto' };

const status = document.querySelector('#status');
const canvas = document.querySelector('canvas');
const form = document.querySelector('#controls');
const legend = document.querySelector('#legend');
const tree = document.querySelector('#tree');
const fileInput = document.querySelector('#file');
const fileError = document.querySelector('#file-error');
const fileNote = document.querySelector('#file-note');
const generatedButton = document.querySelector('#generated');

/** The user's file once read: { name, points, n, dim, columns }; null while the data are generated. */
let file = null;

/** The form's values as hdbscan parameters (minSamples undefined when blank), or a message saying what is wrong.
 *  With a file loaded, n is the file's and clusters/seed (disabled) are left out. */
function readForm() {
  const f = new FormData(form);
  const int = (name) => Number(f.get(name));
  const params = file
    ? { source: 'file', file: file.name, n: file.n, dim: file.dim }
    : { n: int('n'), clusters: int('clusters'), seed: int('seed') };
  Object.assign(params, {
    minClusterSize: int('minClusterSize'),
    minSamples: f.get('minSamples') === '' ? undefined : int('minSamples'),
    backend: f.get('backend'),
  });
  for (const [name, min] of [
    ['n', 10],
    ['clusters', 1],
    ['seed', 0],
    ['minClusterSize', 2],
    ['minSamples', 1],
  ]) {
    const v = params[name];
    if (file && (name === 'n' || name === 'clusters' || name === 'seed')) continue;
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

/** The parameters into the URL (a reload or a shared link gives the same page; a file's points are not in it). */
function storeInUrl(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && k !== 'dim') q.set(k, String(v));
  history.replaceState(null, '', `?${q}`);
}

/** One entry per cluster (its colour, as on the canvas and the tree's ring, and size) and one for noise. */
function drawLegend(labels, colours, noiseColour) {
  const sizes = new Array(colours.length).fill(0);
  let noise = 0;
  for (const l of labels) l < 0 ? noise++ : sizes[l]++;
  const entries = sizes.map((size, c) => ({ colour: colours[c], text: `cluster ${c} (${size})` }));
  entries.push({ colour: noiseColour, text: `noise (${noise})` });
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

/** The first two columns of the points (a single column against 0), the MST under them, on equal scales. */
function draw({ points, dim, labels, sources, targets, colours, noiseColour }) {
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  const X = (i) => points[i * dim];
  const Y = (i) => (dim > 1 ? points[i * dim + 1] : 0);
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < labels.length; i++) {
    x0 = Math.min(x0, X(i));
    x1 = Math.max(x1, X(i));
    y0 = Math.min(y0, Y(i));
    y1 = Math.max(y1, Y(i));
  }
  const pad = 16;
  const scale = Math.min((width - 2 * pad) / (x1 - x0 || 1), (height - 2 * pad) / (y1 - y0 || 1));
  const px = (i) => pad + (X(i) - x0) * scale;
  const py = (i) => height - pad - (Y(i) - y0) * scale;

  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  // MST edges: within a cluster in its colour, anything else in grey.
  ctx.lineWidth = 1;
  for (let e = 0; e < sources.length; e++) {
    const a = sources[e];
    const b = targets[e];
    const same = labels[a] === labels[b] && labels[a] >= 0;
    ctx.strokeStyle = same ? colours[labels[a]] : noiseColour;
    ctx.globalAlpha = same ? 0.6 : 0.8;
    ctx.beginPath();
    ctx.moveTo(px(a), py(a));
    ctx.lineTo(px(b), py(b));
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  for (let i = 0; i < labels.length; i++) {
    const noise = labels[i] < 0;
    ctx.fillStyle = noise ? noiseColour : colours[labels[i]];
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
  // The file's points are copied to the worker: the page keeps them for the next "Cluster".
  worker.postMessage(file ? { ...params, points: file.points } : params);
}

/** The data's name in the status line. */
const what = (params) =>
  params.source === 'file' ? `${params.file}: ${params.n} points × ${params.dim} columns` : `${params.n} points`;

function onResult(params, data) {
  if (data.type === 'progress') {
    status.textContent = `Clustering ${what(params)}… ${data.phase ? `${data.phase} ` : ''}${(100 * data.fraction).toFixed(0)} %`;
    return;
  }
  if (data.type === 'error') {
    status.textContent = `Failed on ${what(params)}: ${data.message}`;
    window.treeline = { done: true, params, error: data.message };
    worker.terminate();
    return;
  }
  draw(data);
  drawLegend(data.labels, data.colours, data.noiseColour);
  // The worker's SVG string, made by the library from numbers only (no user text reaches it).
  tree.innerHTML = data.tree;
  const noise = data.labels.reduce((s, l) => s + (l < 0 ? 1 : 0), 0);
  const where =
    data.backend === 'gpu'
      ? `WebGPU (${[data.adapter.vendor, data.adapter.architecture, data.adapter.description].filter(Boolean).join(' ')})`
      : `the CPU backend${data.gpuNote ? ` (${data.gpuNote})` : ''}`;
  status.textContent = `${what(params)}: ${data.clusters} clusters, ${noise} noise — on ${where}, ${data.ms.toFixed(0)} ms.`;
  window.treeline = {
    done: true,
    params,
    backend: data.backend,
    adapter: data.adapter,
    gpuNote: data.gpuNote,
    clusters: data.clusters,
    noise,
    labels: Array.from(data.labels),
    palette: data.colours,
    ms: data.ms,
    timings: data.timings,
  };
  worker.terminate();
}

/** Reads the user's file; on success it replaces the generated data and runs, else the page says what was wrong. */
async function useFile(picked) {
  fileError.textContent = '';
  let parsed;
  try {
    parsed = parseDataFile(picked.name, await picked.arrayBuffer());
  } catch (e) {
    fileError.textContent = e.message;
    window.treeline = { ...window.treeline, fileError: e.message };
    return;
  }
  file = { name: picked.name, ...parsed };
  for (const name of ['n', 'clusters', 'seed']) form.elements[name].disabled = true;
  form.elements.n.value = String(file.n);
  const drawn = file.dim > 1 ? `${file.columns[0]} against ${file.columns[1]}` : `${file.columns[0]} against 0`;
  fileNote.textContent = `${file.name}: ${file.n} points, clustered on ${file.dim} column${file.dim > 1 ? 's' : ''} (${file.columns.join(', ')}); drawn: ${drawn}.`;
  generatedButton.hidden = false;
  submit();
}

function useGenerated() {
  file = null;
  for (const name of ['n', 'clusters', 'seed']) form.elements[name].disabled = false;
  form.elements.n.value = String(DEFAULTS.n);
  fileNote.textContent = '';
  fileError.textContent = '';
  fileInput.value = '';
  generatedButton.hidden = true;
  submit();
}

function submit() {
  const params = readForm();
  if (typeof params === 'string') {
    status.textContent = params;
    return;
  }
  storeInUrl(params);
  run(params);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  submit();
});
fileInput.addEventListener('change', () => fileInput.files[0] && useFile(fileInput.files[0]));
generatedButton.addEventListener('click', useGenerated);
// The whole page takes a dropped file.
document.addEventListener('dragover', (event) => {
  event.preventDefault();
  document.body.classList.add('dragging');
});
document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
document.addEventListener('drop', (event) => {
  event.preventDefault();
  document.body.classList.remove('dragging');
  const dropped = event.dataTransfer?.files?.[0];
  if (dropped) useFile(dropped);
});

fillForm();
if (new URLSearchParams(location.search).get('source') === 'file') {
  // A link made from a file: its points are not in the URL.
  status.textContent =
    'This link was made from a file (source=file), whose points are not kept in the URL: drop or pick the file again, or press Cluster for generated data.';
} else {
  const initial = readForm();
  if (typeof initial === 'string') status.textContent = initial;
  else run(initial);
}
