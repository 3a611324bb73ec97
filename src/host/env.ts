/**
 * Environment variables where a process exists (Node), for the few TREELINE_* switches of A/B runs: read through
 * globalThis, so the library needs no `process` global and no node: module in a browser or a Web Worker.
 */

/** The environment variable `name` (undefined where it is unset or there is no process). */
export function envVar(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}
