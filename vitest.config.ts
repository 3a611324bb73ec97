import { defineConfig } from 'vitest/config';

// Three projects: `cpu` (pure TypeScript, fast), `gpu` (real WGSL on whatever adapter exists: lavapipe in CI,
// the H100 in bench runs) and `browser` (examples/browser in headless Chromium). GPU tests skip without an adapter
// unless TREELINE_REQUIRE_GPU=1, which makes them fail.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'cpu',
          include: ['test/cpu/**/*.test.ts'],
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
          // One GPU device at a time: lavapipe has two CPU threads and Dawn devices are heavy.
          fileParallelism: false,
          pool: 'forks',
        },
      },
      {
        test: {
          // The browser example in headless Chromium (playwright-core, Debian's chromium); skips without Chromium
          // unless TREELINE_REQUIRE_BROWSER=1, which makes that a failure.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          pool: 'forks',
        },
      },
    ],
  },
});
