/**
 * Issue 15 §2 and §4.10: which backend `auto` uses and why. Software adapters (lavapipe, SwiftShader, WARP) are
 * recognised from WebGPU's isFallbackAdapter or their names (src/gpu/adapter.ts); `treeline info` says which backend
 * `auto` would use and why (the real CLI as a child process, on whatever adapter this machine has: lavapipe here, an
 * H100 in bench runs, none at all elsewhere); an unknown TREELINE_GPU_FEATURES value is an input error naming it;
 * the native lines kept off stderr (src/gpu/stderr.ts) are exactly Dawn's two limit warnings and the Vulkan loader's.
 */
import { describe, expect, it } from 'vitest';
import { softwareAdapterReason } from '../../src/gpu/adapter.js';
import { featuresFromEnv } from '../../src/gpu/context.js';
import { isNativeNoise, withoutNoise } from '../../src/gpu/stderr.js';
import { InputError } from '../../src/errors.js';
import { runCliProcess } from '../helpers/cli.process.js';

describe('softwareAdapterReason(adapter info)', () => {
  it('issue 15: names lavapipe, SwiftShader and WARP as software, from the fallback flag or their names', () => {
    const lavapipe = {
      vendor: 'mesa',
      architecture: 'software',
      device: 'llvmpipe-llvm-15-0-6-256-bits-',
      description: 'llvmpipe: Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) 0.0.1',
    };
    expect(softwareAdapterReason({ ...lavapipe, isFallbackAdapter: true })).toBe('it reports isFallbackAdapter');
    expect(softwareAdapterReason(lavapipe)).toBe('its architecture names software');
    expect(softwareAdapterReason({ vendor: 'mesa', description: 'lavapipe' })).toBe('its description names lavapipe');
    expect(
      softwareAdapterReason({ vendor: 'google', architecture: '', description: 'SwiftShader Device (Subzero)' }),
    ).toMatch(/description names SwiftShader/);
    expect(softwareAdapterReason({ vendor: 'microsoft', description: 'Microsoft Basic Render Driver' })).toMatch(
      /Basic Render Driver/,
    );
    expect(softwareAdapterReason({ vendor: 'microsoft', architecture: 'warp' })).toMatch(/warp/);
    expect(softwareAdapterReason({ vendor: 'intel', architecture: 'cpu' })).toMatch(/cpu/);
  });

  it('issue 15: hardware GPUs are not software adapters', () => {
    for (const gpu of [
      {
        vendor: 'nvidia',
        architecture: 'hopper',
        device: '',
        description: 'NVIDIA H100 80GB HBM3',
        isFallbackAdapter: false,
      },
      { vendor: 'amd', architecture: 'rdna-3', description: 'AMD Radeon 780M Graphics (RADV PHOENIX)' },
      { vendor: 'apple', architecture: 'metal-3', description: 'Apple M2' },
      { vendor: 'intel', architecture: 'gen-12lp', description: 'Intel(R) UHD Graphics 770' },
      {},
    ]) {
      expect(softwareAdapterReason(gpu), JSON.stringify(gpu)).toBeNull();
    }
  });
});

describe('TREELINE_GPU_FEATURES', () => {
  it('issue 15: all, none, and comma lists of known features are accepted', () => {
    expect(featuresFromEnv(undefined)).toBeUndefined();
    expect(featuresFromEnv('')).toBeUndefined();
    expect(featuresFromEnv('all')).toBeUndefined();
    expect(featuresFromEnv('none')).toBe('none');
    expect(featuresFromEnv(' subgroups, timestamp-query ')).toEqual({
      subgroups: true,
      timestampQuery: true,
      atomicVec2uMinMax: false,
    });
  });

  it('issue 15: an unknown value is an InputError naming it and the valid ones', () => {
    expect(() => featuresFromEnv('subgroup')).toThrow(InputError);
    expect(() => featuresFromEnv('subgroups,timestamps')).toThrow(
      /Unknown TREELINE_GPU_FEATURES value 'timestamps' \(in 'subgroups,timestamps'\): expected 'all', 'none' or a comma list of 'subgroups', 'timestamp-query', 'atomic-vec2u-min-max'/,
    );
  });

  it('issue 15: treeline info with an unknown TREELINE_GPU_FEATURES exits 2 with one line naming the value', async () => {
    const r = await runCliProcess(['info'], { env: { TREELINE_GPU_FEATURES: 'subgroup' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /Unknown TREELINE_GPU_FEATURES value 'subgroup'.*'subgroups', 'timestamp-query', 'atomic-vec2u-min-max'/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(r.stdout).toBe('');
  });
});

describe('treeline info', () => {
  it("issue 15: says which backend 'auto' uses and why, and never a software adapter", async () => {
    const r = await runCliProcess(['info', '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout) as {
      backend: 'gpu' | 'cpu';
      auto: string;
      adapter?: { description: string; software: string | null };
    };
    if (!info.adapter) {
      expect(info.backend).toBe('cpu');
      expect(info.auto).toMatch(/^no WebGPU adapter/);
    } else if (info.adapter.software) {
      expect(info.backend).toBe('cpu');
      expect(info.auto).toMatch(
        /^the only adapter, .*, is a software implementation \(.+\), slower than the CPU backend; --backend gpu uses it anyway$/,
      );
    } else {
      expect(info.backend).toBe('gpu');
      expect(info.auto).toMatch(/is a hardware adapter$/);
    }
    const text = await runCliProcess(['info']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`auto: ${info.backend} (${info.auto})`);
    // Issue 19: the EMST's GPU memory a point (src/bvh/capacity.ts, emstPeakBytesPerPoint), wherever there is a GPU.
    if (info.adapter) {
      expect(text.stdout).toContain(
        "GPU memory at the EMST's peak, bytes a point beyond the input's 4·dim (mutual reachability in brackets): 2D 88.5 (100.5), 3D 96.5 (108.5)",
      );
    }
  });
});

describe('native stderr lines (src/gpu/stderr.ts)', () => {
  const dawn = [
    'Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.',
    'Warning: maxDynamicStorageBuffersPerPipelineLayout artificially reduced from 500000 to 16 to fit dynamic offset allocation limit.',
  ];
  const loader = [
    'ERROR: [Loader Message] Code 0 : loader_scanned_icd_add: Could not get `vkCreateInstance` via `vk_icdGetInstanceProcAddr`',
    'WARNING:          vkEnumerateInstanceLayerProperties: Unable to resolve symbol "" in implicit layer library "libVkLayer_MESA_device_select.so"',
    'WARNING | LAYER:  Layer name GalaxyOverlayVkLayer does not conform to naming standard',
    'INFO:             Vulkan Loader Version 1.3.239',
  ];
  const other = [
    'treeline: hdbscan runs on the CPU backend: no WebGPU adapter was found.',
    'Error: something else',
    'WARNING: low disk',
  ];

  it('issue 15: Dawn’s two limit warnings and the Vulkan loader’s lines are noise; other lines are not', () => {
    for (const line of [...dawn, ...loader]) expect(isNativeNoise(line, {}), line).toBe(true);
    for (const line of other) expect(isNativeNoise(line, {}), line).toBe(false);
  });

  it('issue 15: withoutNoise(captured stderr) keeps everything else byte for byte, a progress line without newline too', () => {
    const bar = '\x1b[2Kemst  compile  [....]    0%  0.2 s';
    const captured = `note one\n${bar}${dawn[0]}\n${dawn[1]}\n${loader[1]}\n${bar}`;
    expect(withoutNoise(captured, {})).toBe(`note one\n${bar}${bar}`);
    expect(withoutNoise('plain\r\nlast', {})).toBe('plain\r\nlast');
    expect(withoutNoise(`${loader[0]}\n`, { VK_LOADER_DEBUG: 'error' })).toBe(`${loader[0]}\n`);
  });

  it('issue 15: with VK_LOADER_DEBUG set the loader’s lines pass (the user asked for them); Dawn’s never do', () => {
    for (const line of loader) expect(isNativeNoise(line, { VK_LOADER_DEBUG: 'all' }), line).toBe(false);
    for (const line of dawn) expect(isNativeNoise(line, { VK_LOADER_DEBUG: 'all' }), line).toBe(true);
  });
});
