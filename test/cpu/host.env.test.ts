/**
 * src/host/env.ts: envVar reads an environment variable where a process exists, and answers undefined where it is
 * unset or there is no process at all (a browser or a Web Worker: no `process` global).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { envVar } from '../../src/host/env.js';

const NAME = 'TREELINE_HOST_ENV_TEST_PROBE';

describe('envVar', () => {
  afterEach(() => {
    delete process.env[NAME];
  });

  it('envVar(name) returns the variable where it is set, undefined where it is not', () => {
    expect(envVar(NAME)).toBeUndefined();
    process.env[NAME] = '0';
    expect(envVar(NAME)).toBe('0');
    process.env[NAME] = '';
    expect(envVar(NAME)).toBe('');
  });

  it('envVar(name) returns undefined without a process global (browsers)', () => {
    process.env[NAME] = '1';
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'process')!;
    let read: string | undefined = 'not read';
    try {
      Object.defineProperty(globalThis, 'process', { value: undefined, configurable: true, writable: true });
      read = envVar(NAME);
    } finally {
      Object.defineProperty(globalThis, 'process', descriptor);
    }
    expect(read).toBeUndefined();
    expect(envVar(NAME)).toBe('1');
  });
});
