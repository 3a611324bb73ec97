/**
 * issue 20: the NATS transport's pieces that need no server — the task message bytes (nats.codec.ts), task ids
 * (nats.tasks.ts), the refusal of anonymous remote connections (nats.ts) and `--gpu`'s device choice
 * (worker.gpu.ts) on a fake /sys/bus/pci/devices.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeTaskMessage,
  decodeTaskMeta,
  encodedPieces,
  encodedSize,
  encodeTaskMessage,
} from '../../src/distributed/nats.codec.js';
import { checkRunId, connectNats } from '../../src/distributed/nats.js';
import { contentId, messageOutcome, outcomeMessage } from '../../src/distributed/nats.tasks.js';
import { displayDevices, driPrimeTag, selectGpu } from '../../src/cli/worker.gpu.js';
import { InputError } from '../../src/errors.js';
import type { TaskMessage } from '../../src/distributed/types.js';
import { mulberry32 } from '../helpers/random.js';

function randomMessage(seed: number): TaskMessage {
  const r = mulberry32(seed);
  const len = () => Math.floor(r() * 9); // 0 … 8: empty arrays and lengths that leave every padding case
  return {
    meta: { seed, note: 'ü → ∞', list: [1, 2.5, null, true], nested: { a: 'b' } },
    arrays: {
      f32: Float32Array.from({ length: len() }, () => r() * 1e6 - 5e5),
      f64: Float64Array.from({ length: len() }, () => r() - 0.5),
      u32: Uint32Array.from({ length: len() }, () => Math.floor(r() * 2 ** 32)),
      i32: Int32Array.from({ length: len() }, () => Math.floor(r() * 2 ** 32) - 2 ** 31),
      u8: Uint8Array.from({ length: len() }, () => Math.floor(r() * 256)),
    },
  };
}

describe('task message bytes (encodeTaskMessage / decodeTaskMessage)', () => {
  it('round-trip every array type, empty arrays and every length mod 8, bit for bit', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const msg = randomMessage(seed);
      const back = decodeTaskMessage(encodeTaskMessage(msg));
      expect(back.meta).toEqual(msg.meta);
      expect(Object.keys(back.arrays)).toEqual(Object.keys(msg.arrays));
      for (const [name, a] of Object.entries(msg.arrays)) {
        expect(back.arrays[name].constructor).toBe(a.constructor);
        expect(back.arrays[name]).toEqual(a);
      }
    }
  });

  it('into a buffer used before (putMessage keeps one): the same bytes, paddings zeroed; too small: a new array', () => {
    const dirty = new Uint8Array(4096).fill(0xa5);
    for (let seed = 41; seed <= 60; seed++) {
      const msg = randomMessage(seed);
      const fresh = encodeTaskMessage(msg);
      expect(encodedSize(msg)).toBe(fresh.length);
      const reused = encodeTaskMessage(msg, dirty);
      expect(reused.buffer).toBe(dirty.buffer);
      expect(reused).toEqual(fresh);
      const small = new Uint8Array(fresh.length - 1);
      expect(encodeTaskMessage(msg, small).buffer).not.toBe(small.buffer);
    }
  });

  it('size and offsets past 2^31 and 2^32 bytes (a partition of 2.7·10^8 points): no 32-bit wrap', () => {
    // Arrays that are never written: their pages are not taken (a few MB of resident memory, not 4.3 GB).
    const points = new Float32Array(810_000_001); // 3,240,000,004 bytes: padded to …008
    const ids = new Uint32Array(270_000_000); // 1,080,000,000 bytes
    const msg = { meta: { id: 0, dim: 3 }, arrays: { points, ids } };
    const { size, pieces } = encodedPieces(msg);
    const head = pieces[0].bytes.length;
    expect(head % 8).toBe(0);
    expect(pieces.map((p) => p.at)).toEqual([0, head, head + 3_240_000_008]);
    expect(size).toBe(head + 3_240_000_008 + 1_080_000_000);
    expect(encodedSize(msg)).toBe(size);
  });

  it('keep NaN, −0 and subnormal bits, and decode from an unaligned view (as NATS hands buffers out)', () => {
    const f32 = new Float32Array([NaN, -0, 1e-45, Infinity]);
    const bytes = encodeTaskMessage({ meta: {}, arrays: { f32 } });
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    for (const view of [bytes, shifted.subarray(3), Buffer.from(shifted).subarray(3)]) {
      const back = decodeTaskMessage(view).arrays.f32 as Float32Array;
      expect(new Uint32Array(back.buffer, back.byteOffset, 4)).toEqual(new Uint32Array(f32.buffer));
    }
    expect(decodeTaskMeta(shifted.subarray(3))).toEqual({});
  });

  it('refuse what is not a task message, naming what came', () => {
    expect(() => decodeTaskMessage(new Uint8Array([1, 2, 3, 4, 0, 0, 0, 0]))).toThrow(
      /starting 'TLT1'.*\[1, 2, 3, 4\]/,
    );
    const bytes = encodeTaskMessage({ meta: {}, arrays: { a: new Float64Array(4) } });
    expect(() => decodeTaskMessage(bytes.subarray(0, bytes.length - 8))).toThrow(/'a' \(4 × f64\) runs past/);
    expect(() => encodeTaskMessage({ meta: {}, arrays: { x: [1, 2] as unknown as Float32Array } })).toThrow(
      /task array 'x'.*got Array/,
    );
  });

  it('carry outcomes: a reply, or the worker error', () => {
    const reply = randomMessage(7);
    const r = messageOutcome(decodeTaskMessage(encodeTaskMessage(outcomeMessage({ reply }))));
    expect('reply' in r && r.reply.meta).toEqual(reply.meta);
    const e = messageOutcome(decodeTaskMessage(encodeTaskMessage(outcomeMessage({ error: 'boom' }))));
    expect(e).toEqual({ error: 'boom' });
  });
});

describe('contentId', () => {
  it('is the same for the same task and differs when any part differs', () => {
    const msg = randomMessage(3);
    const id = contentId('nearest', 2, msg, 'epoch');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(contentId('nearest', 2, randomMessage(3), 'epoch')).toBe(id);
    const changed = randomMessage(3);
    (changed.arrays.f64 as Float64Array)[0] = Math.fround(1.5); // one value
    const others = [
      contentId('tree', 2, msg, 'epoch'),
      contentId('nearest', 3, msg, 'epoch'),
      contentId('nearest', undefined, msg, 'epoch'),
      contentId('nearest', 2, msg, 'another run'),
      contentId('nearest', 2, { ...msg, meta: { ...msg.meta, seed: 4 } }, 'epoch'),
      contentId('nearest', 2, { meta: msg.meta, arrays: { ...msg.arrays, u8: new Uint8Array([1]) } }, 'epoch'),
    ];
    if ((msg.arrays.f64 as Float64Array).length > 0) others.push(contentId('nearest', 2, changed, 'epoch'));
    expect(new Set([id, ...others]).size).toBe(others.length + 1);
  });
});

describe('connections and run ids', () => {
  it('an anonymous connection to a server that is not on loopback is refused before connecting', async () => {
    await expect(connectNats({ url: 'nats://10.1.2.3:4222' })).rejects.toThrow(/Refusing an anonymous NATS/);
    await expect(connectNats({ url: 'nats://127.0.0.1:4222, nats://example.org:4222' })).rejects.toThrow(
      /example\.org/,
    );
    await expect(connectNats({ url: 'nats://10.1.2.3:4222', tlsCert: 'a.pem' })).rejects.toThrow(InputError);
  });

  it('run ids name subjects and buckets: letters, digits, - and _ only', () => {
    expect(checkRunId('big-run_1')).toBe('big-run_1');
    for (const bad of ['', 'a.b', 'a b', 'a>', 'x'.repeat(65)]) expect(() => checkRunId(bad)).toThrow(InputError);
  });
});

describe('treeline worker --gpu (worker.gpu.ts)', () => {
  it('takes the i-th display device in PCI order and hides the others through the device-select layer', () => {
    const root = mkdtempSync(join(tmpdir(), 'treeline-pci-'));
    try {
      const devices: [string, string][] = [
        ['0000:c1:00.0', '0x030200'], // 3D controller (a compute GPU)
        ['0000:00:02.0', '0x060400'], // a bridge
        ['0000:41:00.0', '0x030200'],
        ['0000:03:00.0', '0x030000'], // VGA
      ];
      for (const [address, cls] of devices) {
        mkdirSync(join(root, address));
        writeFileSync(join(root, address, 'class'), cls + '\n');
      }
      expect(displayDevices(root)).toEqual(['0000:03:00.0', '0000:41:00.0', '0000:c1:00.0']);
      expect(driPrimeTag('0000:41:00.0')).toBe('pci-0000_41_00_0');
      const env: NodeJS.ProcessEnv = {};
      try {
        expect(selectGpu(1, env, root)).toMatch(/GPU 1 at PCI 0000:41:00\.0/);
        expect(env).toEqual({ DRI_PRIME: 'pci-0000_41_00_0', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
      } catch (e) {
        // Without Mesa's device-select layer installed the choice is refused, naming the package.
        expect((e as Error).message).toMatch(/VK_LAYER_MESA_device_select.*mesa-vulkan-drivers/);
      }
      expect(() => selectGpu(3, {}, root)).toThrow(/below the number of GPUs on this host \(3: .*\), got 3/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
