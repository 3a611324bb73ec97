/**
 * Graph files by extension (Node only: reads and writes through node:fs):
 *   .mtx                                        MatrixMarket coordinate (graph.mtx.ts)
 *   .gr                                         DIMACS shortest-path format (graph.dimacs.ts)
 *   .egr                                        ECL binary CSR (graph.egr.ts)
 *   .txt .el .edges .edgelist .tsv .csv .wel     plain edge lists (graph.edgelist.ts)
 * Every reader error is a GraphFormatError naming the file, the line (or byte) and the value.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import { isCsr, type Graph } from './graph.types.js';
import { parseDimacs, writeDimacs } from './graph.dimacs.js';
import { csrToEdgeList, edgeListToCsr, parseEgr, writeEgr } from './graph.egr.js';
import { parseEdgeList, writeEdgeList, type EdgeListReadOptions } from './graph.edgelist.js';
import { parseMatrixMarket, writeMatrixMarket } from './graph.mtx.js';

export type GraphFormat = 'mtx' | 'gr' | 'egr' | 'edgelist' | 'csv';

const BY_EXTENSION: Record<string, GraphFormat> = {
  '.mtx': 'mtx',
  '.gr': 'gr',
  '.egr': 'egr',
  '.txt': 'edgelist',
  '.el': 'edgelist',
  '.edges': 'edgelist',
  '.edgelist': 'edgelist',
  '.tsv': 'edgelist',
  '.wel': 'edgelist',
  '.csv': 'csv',
};

/** Extension → graph format, as `graphFormatOf` reads them (the CLI's `--help` lists these). */
export const GRAPH_EXTENSIONS: Readonly<Record<string, GraphFormat>> = BY_EXTENSION;

/** The format a path's extension names; InputError for an unknown one. */
export function graphFormatOf(path: string): GraphFormat {
  const ext = extname(path).toLowerCase();
  const f = BY_EXTENSION[ext];
  if (!f) {
    throw new InputError(`${path}: unknown graph format '${ext}' (expected ${Object.keys(BY_EXTENSION).join(', ')}).`);
  }
  return f;
}

/** Parses graph file contents held in memory. */
function parseGraph(bytes: Uint8Array, format: GraphFormat, file: string, options: EdgeListReadOptions = {}): Graph {
  switch (format) {
    case 'mtx':
      return parseMatrixMarket(bytes, file);
    case 'gr':
      return parseDimacs(bytes, file);
    case 'egr':
      return parseEgr(bytes, file);
    default:
      return parseEdgeList(bytes, file, options);
  }
}

/** Reads a graph file; the format comes from the extension unless given. */
export async function readGraph(
  path: string,
  options: EdgeListReadOptions & { format?: GraphFormat } = {},
): Promise<Graph> {
  const format = options.format ?? graphFormatOf(path);
  return parseGraph(await readFile(path), format, path, options);
}

/** The bytes of a graph in a format (edge lists are converted to CSR for .egr, CSRs to edge lists otherwise). */
export function formatGraph(g: Graph, format: GraphFormat): Uint8Array {
  if (format === 'egr') {
    // .egr stores int32 counts; check before edgeListToCsr allocates numVertices + 1 offsets.
    const n = isCsr(g) ? g.offsets.length - 1 : g.numVertices;
    if (n > 0x7fffffff)
      throw new InputError(`.egr stores the vertex count as an int32: expected numVertices ≤ 2147483647, got ${n}.`);
    return writeEgr(isCsr(g) ? g : edgeListToCsr(g).csr);
  }
  const el = isCsr(g) ? csrToEdgeList(g) : g;
  const text =
    format === 'mtx'
      ? writeMatrixMarket(el)
      : format === 'gr'
        ? writeDimacs(el)
        : writeEdgeList(el, { delimiter: format === 'csv' ? ',' : ' ' });
  return new TextEncoder().encode(text);
}

/** Writes a graph file; the format comes from the extension unless given. */
export async function writeGraph(path: string, g: Graph, format: GraphFormat = graphFormatOf(path)): Promise<void> {
  await writeFile(path, formatGraph(g, format));
}
