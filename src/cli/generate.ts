/** `treeline generate`: seeded point clouds (the generators of src/datasets/) as CSV, NPY or ArborX binary. */
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import { GENERATOR_DEFAULTS, GENERATORS, type GeneratorName } from '../datasets/generate.js';
import { generateThreaded } from '../datasets/generate.threads.js';
import { AtomicOutputs, checkOutputPath, pointsCsvChunks } from '../io/write.js';
import { npyChunks } from '../io/npy.js';
import { binPointsChunks } from '../io/points.bin.js';

const { blobs, visualvar, cosmology } = GENERATOR_DEFAULTS;

/** `--clusters` and `--noise` defaults per generator, from src/datasets/generate.ts (so the help cannot drift). */
export const CLUSTERS_HELP = `blobs, visualvar: number of clusters (default: blobs ${blobs.clusters}, visualvar ${visualvar.clusters})`;
export const NOISE_HELP = `blobs, visualvar: fraction of uniform noise points (default: blobs ${blobs.noise}, visualvar ${visualvar.noise})`;

/** What each generator draws, its box and defaults (`generate --help`), from src/datasets/generate.ts. */
export function generatorsHelp(): string {
  const what: Record<GeneratorName, string> = {
    uniform: 'uniform in the unit cube [0, 1)^d',
    normal: 'standard normal in every coordinate',
    blobs:
      `--clusters ${blobs.clusters} Gaussian blobs (σ 1), centres uniform in the box [−${blobs.halfWidth}, ${blobs.halfWidth})^d, ` +
      `plus --noise ${blobs.noise} of the points uniform in that box`,
    moons: 'two interleaving half circles (2-D only), Gaussian noise σ 0.05',
    visualvar:
      `Gan & Tao's variable-density seed spreader in the box [0, ${visualvar.box}]^d: about --clusters ${visualvar.clusters} ` +
      `clusters, --noise ${visualvar.noise} uniform noise`,
    cosmology: `haloes and filaments in the periodic box [0, ${cosmology.box})^d (treeline stats --periodic ${cosmology.box})`,
  };
  const width = Math.max(...GENERATORS.map((g) => g.length));
  return ['', 'Generators (and their defaults):', ...GENERATORS.map((g) => `  ${g.padEnd(width)}  ${what[g]}`)].join(
    '\n',
  );
}

export interface GenerateCliOptions {
  n: number;
  dim: number;
  seed: number;
  clusters?: number;
  noise?: number;
  output?: string;
  format?: string;
}

export async function runGenerate(kind: string, o: GenerateCliOptions, out: (s: string) => void): Promise<string> {
  if (!GENERATORS.includes(kind as GeneratorName)) {
    throw new InputError(`Unknown generator '${kind}'; known: ${GENERATORS.join(', ')}.`);
  }
  const format = o.format ?? (o.output ? extname(o.output).slice(1).toLowerCase() || 'csv' : 'csv');
  if (!['csv', 'npy', 'bin'].includes(format))
    throw new InputError(`Unknown format '${format}' (expected csv, npy or bin).`);
  if (format === 'bin' && o.n > 0x7fffffff) {
    throw new InputError(
      `--format bin stores n as an int32: expected -n ≤ 2147483647, got ${o.n} (write .npy instead).`,
    );
  }
  if (o.output !== undefined) checkOutputPath(o.output, '-o'); // before generating (issue 15)
  // uniform and normal on the host's threads from 2^22 values (the same values; generate.threads.ts).
  const points = await generateThreaded(kind as GeneratorName, {
    n: o.n,
    dim: o.dim,
    seed: o.seed,
    clusters: o.clusters,
    noise: o.noise,
  });
  if (!o.output) {
    if (format !== 'csv') throw new InputError(`--format ${format} is binary: give a file with -o.`);
    for (const chunk of pointsCsvChunks(points, o.dim)) out(chunk);
    return 'stdout';
  }
  // In chunks: views of the points' bytes (npy, bin) or text of 2^15 rows (csv), never one copy of the whole file.
  const chunks =
    format === 'csv'
      ? pointsCsvChunks(points, o.dim)
      : format === 'npy'
        ? npyChunks(points, [o.n, o.dim])
        : binPointsChunks(points, o.dim);
  // Beside the target first, renamed when complete: a failed write never truncates an existing file.
  const outputs = new AtomicOutputs();
  try {
    await outputs.write(o.output, chunks);
    await outputs.commit();
  } catch (e) {
    outputs.discard();
    throw e;
  }
  return o.output;
}
