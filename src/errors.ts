/**
 * The library's typed errors. The library throws; only the CLI (`src/cli/main.ts`) maps them to exit codes.
 */

/** What a caught value says: an Error's message, anything else as a string (for log lines that name a cause). */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Base class of every error treeline throws on purpose. */
export class TreelineError extends Error {
  override name = 'TreelineError';
}

/** The caller passed something invalid: the message names the value, the row, and what was expected. */
export class InputError extends TreelineError {
  override name = 'InputError';
}

/** No WebGPU adapter could be found (no `navigator.gpu`, no `webgpu` package, or no adapter). */
export class GpuUnavailableError extends TreelineError {
  override name = 'GpuUnavailableError';
}

/** A GPU validation, out-of-memory or internal error, raised under the label of the work that caused it. */
export class GpuError extends TreelineError {
  override name = 'GpuError';
  constructor(
    /** `'validation' | 'out-of-memory' | 'internal' | 'uncaptured'`. */
    readonly kind: string,
    /** The label (`layer::thing`) of the kernel or submission that was running. */
    readonly label: string,
    message: string,
  ) {
    super(`GPU ${kind} error in ${label}: ${message}`);
  }
}

/** The device was lost (driver reset, `destroy()`, or out of memory on some drivers). */
export class GpuDeviceLostError extends TreelineError {
  override name = 'GpuDeviceLostError';
}

/** Work was cancelled through an AbortSignal. */
export class AbortError extends TreelineError {
  override name = 'AbortError';
}

/**
 * The server closed a NATS connection for good (it reconnects otherwise): a `treeline worker` stops and exits 1 — a
 * known end, not a crash (no stack), so that a supervisor starts it again.
 */
export class ConnectionClosedError extends TreelineError {
  override name = 'ConnectionClosedError';
}
