/**
 * The host object: what the orchestrators (`emst()`, `hdbscan()`) hand down instead of loose `threads`,
 * `buffers` and size knobs. Threads are resolved once, by the public entry point (src/host/threads.ts,
 * resolveThreads); the worker pool is the process's (host/threads.ts); the thresholds are the table in
 * host/thresholds.ts unless a test lowers them. Layers that own shared buffers add them (src/cluster's ClusterHost).
 */
import { THRESHOLDS, type Thresholds } from './thresholds.js';

export interface Host {
  /** Threads for the host's work, the calling one included (1: everything on the calling thread). */
  threads: number;
  /** From which sizes the threaded passes run (THRESHOLDS by default). */
  thresholds: Readonly<Thresholds>;
}

/** A host of `threads` threads (already resolved), with the library's thresholds or some of them lowered (tests). */
export function createHost(threads: number, thresholds?: Partial<Thresholds>): Host {
  return { threads, thresholds: thresholds ? { ...THRESHOLDS, ...thresholds } : THRESHOLDS };
}

/** The calling thread alone: what the synchronous entry points run on. */
export const ONE_THREAD: Host = Object.freeze(createHost(1));
