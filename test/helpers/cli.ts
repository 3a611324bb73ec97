/**
 * Driving the CLI in tests: `runCli(args)` builds the program with captured io (as test/cpu/cli.test.ts does) and
 * returns stdout, stderr and the error it threw; `tempDir()` gives a fresh folder; `writePointsCsv` writes points.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../src/cli/program.js';

export interface CliRun {
  out: string;
  log: string;
  error?: unknown;
}

export async function runCli(args: string[]): Promise<CliRun> {
  let out = '';
  let log = '';
  const program = buildProgram({ out: (s) => void (out += s), log: (s) => void (log += s + '\n') });
  for (const c of [program, ...program.commands]) {
    c.exitOverride();
    c.configureOutput({ writeOut: (s) => void (out += s), writeErr: (s) => void (log += s) });
  }
  try {
    await program.parseAsync(['node', 'treeline', ...args]);
    return { out, log };
  } catch (error) {
    return { out, log, error };
  }
}

/** A fresh temporary folder. */
export function tempDir(prefix = 'treeline-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes row-major points as CSV with a header (x0, x1, … unless names are given); returns the path. */
export function writePointsCsv(path: string, points: ArrayLike<number>, dim: number, names?: string[]): string {
  const header = names ?? Array.from({ length: dim }, (_, j) => `x${j}`);
  const lines = [header.join(',')];
  for (let i = 0; i < points.length / dim; i++)
    lines.push(Array.from({ length: dim }, (_, j) => points[i * dim + j]).join(','));
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** Parses CSV output with a header into named numeric columns. */
export function parseCsvColumns(text: string): Record<string, number[]> {
  const [head, ...rows] = text.trim().split('\n');
  const names = head.split(',');
  const cols: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, [] as number[]]));
  for (const r of rows) r.split(',').forEach((v, j) => cols[names[j]].push(Number(v)));
  return cols;
}
