/** Test files in one fresh temporary folder per test file, removed after its tests. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** `put(bytes, ext)` writes bytes to a new file (f0.npy, f1.bin, …) in the folder and returns its path. */
export function tempFiles(prefix: string): { dir: string; put: (bytes: Uint8Array, ext?: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  const put = (bytes: Uint8Array, ext = '.npy'): string => {
    const file = join(dir, `f${files++}${ext}`);
    writeFileSync(file, bytes);
    return file;
  };
  return { dir, put };
}
