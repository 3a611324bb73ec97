/**
 * Where a tree's three arrays may be written as they are made (issue 20, session 19): the partitioned EMST's merge
 * (distributed/merge.threads.ts) takes an EdgeSink from its caller, and io/write.sink.ts NpyEdgeSink is the one the CLI
 * passes. Types alone (no node: import), so that distributed/ can name them from below.
 */
/**
 * Files the tree's three arrays may be written to as they are made (io/write.sink.ts NpyEdgeSink: the .npy files of
 * `treeline emst --nats … --format npy -o dir`): the merge's threads write each element at its place, so the bytes
 * and the disk's writeback start while the merge runs (merge.threads.ts).
 */
export interface EdgeSink {
  /** The files opened for m edges, or null where they cannot be (the result is then written afterwards). */
  open(m: number): Promise<EdgeSinkFiles | null>;
}

/** An EdgeSink's open files. */
export interface EdgeSinkFiles {
  /**
   * sources, targets, weights in this order: each file's descriptor (the process's: host worker threads write to it
   * with writeSync while the calling thread keeps it open) and the byte where element 0 goes (4 bytes an element).
   */
  readonly files: readonly { fd: number; at: number }[];
  /** Elements [from, to) of `data` written to file `file` (0, 1, 2 as in `files`) from the calling thread. */
  write(file: number, data: Uint32Array | Float32Array, from: number, to: number): Promise<void>;
  /** The error to throw for a worker thread's failed write to file `file` (its message and errno code). */
  failure(file: number, failure: { message: string; code?: string }): Error;
  /** Every element is written: the sink makes the files durable from here on (the caller does not wait for it). */
  done(): void;
  /** The files are not used after all (the result is written afterwards, as without a sink): dropped. */
  abandon(): Promise<void>;
}
