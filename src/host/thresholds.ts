/**
 * Every size threshold of the host side in one table: from how many points, rows or runts a pass is worth running
 * on worker threads or differently, and from how many threads. Each number is a measurement; the figures are in
 * bench/RESULTS.md (issues 5 and 15) and quoted beside each entry. Tests lower them through `createHost`'s
 * `thresholds` to run the threaded paths on small inputs; the library never changes them.
 */
export interface Thresholds {
  /**
   * Points from which the CPU backend's MST uses threads by default. Measured on the 2-core machine (uniform 2D,
   * k = 8, another job running), emst::neighbours of one thread vs two: 3·10^4 points, a process's first call 96 vs
   * 107 ms, warm calls ~74 vs ~46 ms; 5·10^4 points, first call 181 vs 153 ms, warm ~105 vs ~60 ms. (A new worker
   * starts while the BVH is built, but runs its first queries unoptimised.)
   */
  emstThreadsMinPoints: number;
  /**
   * Points from which hdbscan() allocates the clustering's buffers ahead in shared memory and has worker threads
   * touch them while the GPU computes the MST (src/cluster/buffers.ts; d2b30f1, bench/RESULTS.md issue 5).
   */
  preparedMinPoints: number;
  /**
   * Condensed-tree rows (and points) from which the labelling pass is split over the threads: below, a worker's
   * message costs more than its share saves (pointResults.threads.ts).
   */
  labelMinPoints: number;
  /**
   * Points from which the linkage gathers condensing's counts (no extra pass with random reads): its union-find
   * records grow from 8 to 16 bytes, which costs more than it saves while 8-byte ones still fit the TLB's reach
   * (10^6 points: linkage 100 → 140–190 ms on the 2-core machine, 61 → 173 ms on the H100's host).
   */
  gatherMinPoints: number;
  /**
   * Points from which single linkage runs on the threads (linkage.threads.ts), as hdbscan() prepares its buffers:
   * at 10^6 points on the H100's host, 8–16 threads, the linkage 90–98 → 56–92 ms and the whole clustering after
   * the MST 208–245 → 156–200 ms (its counts gathered for condensing; scripts/bench-cluster.mjs --linkage-min).
   */
  linkageMinPoints: number;
  /**
   * Threads from which single linkage and condensing's layout run on them: the chunked linkage does ~2.5× the
   * sequential union-find's work, so fewer threads lose (10^7 points on the H100's host: 1.1–1.3 s on one thread;
   * 1.8–2.0 s on 2, 0.87–1.1 s on 4, 0.50–0.66 s on 8, 0.34–0.42 s on 16).
   */
  linkageMinThreads: number;
  /** Runts per thread from which condensing's last pass (filling the runts' points) is split over the threads. */
  minRuntsPerThread: number;
  /** Edges from which the CPU backend's final edge sort splits in two halves (one on a worker, then a merge). */
  splitSortMinEdges: number;
  /**
   * Points from which single linkage touches each block of 64 edges' union-find records before merging it: below,
   * the records (8 bytes a point) stay in the last-level cache and the touching loops only cost (10^6 points: 80 ms
   * without, 100 ms with, on the 2-core machine).
   */
  prefetchMinPoints: number;
  /**
   * Points from which allPointsMembershipVectors under backend 'auto' computes its distances to the exemplars on the
   * GPU: below, creating a context (~0.1–0.4 s in a fresh process), the upload and the read-back cost more than the
   * CPU's n · E · d loop. H100 (`bench membership`, 3D blobs, with a context made; bench/RESULTS.md issue 21): GPU
   * 3.9 / 13 / 82 / 892 ms against the CPU's 23 / 83 / 1,200 / 19,591 ms at 2^12 / 2^14 / 2^16 / 2^18 points.
   */
  membershipGpuMinPoints: number;
  /** Chunks of the threaded linkage and layout (undefined: 2 per thread, ≥ 2^16 edges each; tests pass others). */
  linkageChunks: number | undefined;
}

/** The library's thresholds. */
export const THRESHOLDS: Readonly<Thresholds> = Object.freeze({
  emstThreadsMinPoints: 50_000,
  preparedMinPoints: 1 << 19,
  labelMinPoints: 1 << 19,
  gatherMinPoints: 1 << 21,
  linkageMinPoints: 1 << 19,
  linkageMinThreads: 6,
  minRuntsPerThread: 4096,
  splitSortMinEdges: 50_000,
  prefetchMinPoints: 1 << 21,
  membershipGpuMinPoints: 1 << 15,
  linkageChunks: undefined,
});

/** Most threads the CPU backend's MST uses by default (more cores help the k-NN phase little against Borůvka's serial rounds). */
export const MAX_DEFAULT_THREADS = 8;

/**
 * Most threads hdbscan() uses by default beside a GPU MST: its passes (single linkage by chunks, labelling, the
 * first touch of its buffers) scale on to 16 cores (10^7 points on the H100's 16-core host: 8 → 16 threads, the linkage
 * 0.50–0.53 → 0.34–0.42 s; bench/RESULTS.md, issue 5).
 */
export const MAX_DEFAULT_HOST_THREADS = 16;
