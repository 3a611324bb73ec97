/**
 * io/peek.ts: a point file's (n, dim) from its header alone, for the CLI's early GPU work (src/cli/gpuahead.ts) —
 * checked against the full readers' shapes, and null (never an error) wherever the header does not say.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peekPointShape } from '../../src/io/peek.js';
import { readPoints } from '../../src/io/points.js';
import { writeNpy } from '../../src/io/npy.js';

const dir = mkdtempSync(join(tmpdir(), 'treeline-peek-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('peekPointShape', () => {
  it.each([
    [7, 3],
    [0, 2],
    [1, 1],
    [123457, 4],
  ])('.npy of %i × %i: the shape the reader finds', async (n, dim) => {
    const file = join(dir, `p${n}x${dim}.npy`);
    writeFileSync(
      file,
      writeNpy(
        new Float32Array(n * dim).map((_, i) => i),
        dim === 1 ? [n] : [n, dim],
      ),
    );
    // The reader refuses an empty file (it names the missing rows); the header still states its shape.
    const table = n > 0 ? await readPoints(file) : { n, dim };
    expect(await peekPointShape(file)).toEqual({ n: table.n, dim: table.dim });
    expect(await peekPointShape(file, { columns: ['0'] })).toEqual({ n: table.n, dim: 1 });
  });

  it("ArborX's .bin header, and headerless float32 with --dim", async () => {
    const file = join(dir, 'p.bin');
    const body = new Float32Array(5 * 3);
    const bytes = new Uint8Array(8 + body.byteLength);
    new DataView(bytes.buffer).setInt32(0, 5, true);
    new DataView(bytes.buffer).setInt32(4, 3, true);
    bytes.set(new Uint8Array(body.buffer), 8);
    writeFileSync(file, bytes);
    expect(await peekPointShape(file)).toEqual({ n: 5, dim: 3 });
    const raw = join(dir, 'p.f32');
    writeFileSync(raw, new Uint8Array(new Float32Array(12).buffer));
    expect(await peekPointShape(raw, { dim: 4 })).toEqual({ n: 3, dim: 4 });
  });

  it('null where the header does not say: CSV, a damaged .npy, a missing file', async () => {
    const csv = join(dir, 'p.csv');
    writeFileSync(csv, 'x,y\n1,2\n');
    expect(await peekPointShape(csv)).toBeNull();
    const bad = join(dir, 'bad.npy');
    writeFileSync(bad, 'not numpy at all');
    expect(await peekPointShape(bad)).toBeNull();
    expect(await peekPointShape(join(dir, 'missing.npy'))).toBeNull();
  });
});
