// Reading a user's file in the page (no library code: the package's readers are Node-only). Two formats:
//
// - CSV: one point a line, fields split by tab, comma, semicolon or spaces (the first line's, as the CLI's reader);
//   a first line with a field that is not a decimal number is a header. The numeric columns are those of the first data row; every later row must have a finite number there
//   (other columns, such as a text label, are left out).
// - NPY (NumPy's format, https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html): version 1, 2 or 3,
//   dtype '<f4' or '<f8' (float32/float64, little endian), a 2-D shape (n, dim), C or Fortran order.
//
// Both return { points: Float64Array (n × dim, row-major), n, dim, columns: string[] } or throw an Error whose
// message names the file and what was wrong.

/** Parses `buffer` (an ArrayBuffer) by the file name's extension. */
export function parseDataFile(name, buffer) {
  const lower = name.toLowerCase();
  if (lower.endsWith('.npy')) return parseNpy(name, buffer);
  if (lower.endsWith('.csv') || lower.endsWith('.tsv') || lower.endsWith('.txt'))
    return parseCsv(name, new TextDecoder().decode(buffer));
  throw new Error(`${name}: expected a .csv or .npy file.`);
}

/** A decimal number, as src/io/points.csv.ts takes it (not hex, 'Infinity' or 'NaN', which Number() also reads). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const isNumber = (s) => DECIMAL.test(s.trim());

/** CSV text → points (see the header). */
export function parseCsv(name, text) {
  const lines = text.split(/\r?\n/);
  const rows = [];
  for (let i = 0; i < lines.length; i++) if (lines[i].trim() !== '') rows.push({ line: i + 1, text: lines[i] });
  if (rows.length === 0) throw new Error(`${name}: the file is empty.`);
  const line0 = rows[0].text;
  const sep = line0.includes('\t') ? '\t' : line0.includes(',') ? ',' : line0.includes(';') ? ';' : /\s+/;
  const split = (text) =>
    (sep instanceof RegExp ? text.trim() : text).split(sep).map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
  let first = split(rows[0].text);
  let header = null;
  if (!first.every(isNumber)) {
    header = first;
    rows.shift();
    if (rows.length === 0) throw new Error(`${name}: a header line and no data.`);
    first = split(rows[0].text);
  }
  const width = header ? header.length : first.length;
  const columns = [];
  for (let c = 0; c < width; c++) if (isNumber(first[c] ?? '')) columns.push(c);
  if (columns.length === 0)
    throw new Error(`${name}: line ${rows[0].line} has no numeric column (got "${rows[0].text.slice(0, 60)}").`);
  const dim = columns.length;
  const points = new Float64Array(rows.length * dim);
  rows.forEach(({ line, text }, r) => {
    const fields = split(text);
    if (fields.length !== width)
      throw new Error(
        `${name}: line ${line} has ${fields.length} fields, expected ${width} (as line ${rows[0].line}).`,
      );
    columns.forEach((c, k) => {
      const v = fields[c];
      if (!isNumber(v)) {
        const col = header ? `column ${c + 1} ("${header[c]}")` : `column ${c + 1}`;
        throw new Error(`${name}: line ${line}, ${col}: "${v}" is not a decimal number.`);
      }
      points[r * dim + k] = Number(v);
    });
  });
  return {
    points,
    n: rows.length,
    dim,
    columns: columns.map((c) => (header ? header[c] : `column ${c + 1}`)),
  };
}

/** NPY bytes → points (see the header). */
export function parseNpy(name, buffer) {
  const bytes = new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b))
    throw new Error(`${name}: not an NPY file (it does not start with \\x93NUMPY).`);
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`${name}: NPY version ${major}.${bytes[7]} is not supported (1 to 3).`);
  const view = new DataView(buffer);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > bytes.length) throw new Error(`${name}: the NPY header runs past the end of the file.`);
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined)
    throw new Error(
      `${name}: the NPY header is not a dict with descr, fortran_order and shape (got ${header.trim()}).`,
    );
  const bytesPer = { '<f4': 4, '<f8': 8 }[descr];
  if (!bytesPer)
    throw new Error(`${name}: dtype '${descr}' is not supported (float32 '<f4' or float64 '<f8', little endian).`);
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(Number);
  if (shape.length !== 2 || !shape.every((s) => Number.isInteger(s) && s >= 0))
    throw new Error(`${name}: expected a 2-D array (n, dim), got shape (${shapeText.trim()}).`);
  const [n, dim] = shape;
  if (n === 0 || dim === 0) throw new Error(`${name}: the array is empty (shape (${n}, ${dim})).`);
  const dataStart = start + headerLength;
  const expected = n * dim * bytesPer;
  if (bytes.length - dataStart !== expected)
    throw new Error(
      `${name}: shape (${n}, ${dim}) of ${descr} needs ${expected} data bytes, the file has ${bytes.length - dataStart}.`,
    );
  const points = new Float64Array(n * dim);
  const read = bytesPer === 4 ? (o) => view.getFloat32(o, true) : (o) => view.getFloat64(o, true);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < dim; j++) {
      // Fortran order stores column j contiguously.
      const k = fortran === 'True' ? j * n + i : i * dim + j;
      const v = read(dataStart + k * bytesPer);
      if (!Number.isFinite(v)) throw new Error(`${name}: got ${v} at row ${i}, column ${j}.`);
      points[i * dim + j] = v;
    }
  }
  return { points, n, dim, columns: Array.from({ length: dim }, (_, j) => `column ${j + 1}`) };
}
