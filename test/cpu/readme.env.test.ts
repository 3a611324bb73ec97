/**
 * Issue 15: the README's environment-variable table lists every TREELINE_* variable that the code, the scripts and
 * the tests read, so none is a secret switch.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (name === 'golden' || name.endsWith('.generated.ts')) return [];
    if (statSync(join(root, rel)).isDirectory()) return files(rel);
    return /\.(ts|mjs|js|sh)$/.test(name) ? [rel] : [];
  });
}

describe('README environment variables', () => {
  it('issue 15: the table names every TREELINE_* variable read anywhere', () => {
    const read = new Set<string>();
    for (const f of [...files('src'), ...files('test'), ...files('scripts'), '.ci/run']) {
      const text = readFileSync(join(root, f), 'utf8');
      for (const m of text.matchAll(/process\.env\??(?:\.|\[['"])(TREELINE_[A-Z0-9_]+)/g)) read.add(m[1]);
      for (const m of text.matchAll(/\$\{?(TREELINE_[A-Z0-9_]+)/g)) read.add(m[1]);
      for (const m of text.matchAll(/\benvVar\(\s*['"](TREELINE_[A-Z0-9_]+)/g)) read.add(m[1]); // src/host/env.ts
    }
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Environment variables'));
    expect(read.size).toBeGreaterThan(5);
    const missing = [...read].filter((v) => !new RegExp(`\\b${v}\\b`).test(table));
    expect(missing).toEqual([]);
  });
});
