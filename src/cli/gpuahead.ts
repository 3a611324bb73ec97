/**
 * What the CLI starts on the GPU before a point file is read (issue 17 §5): creating the device (~200 ms in a fresh
 * process on the H100) and, once the file's header has told n and the dimension (io/peek.ts), compiling the
 * pipelines the call will take (~90 ms) — both while the file is still being read, instead of after it inside the
 * call. The call then gets the context (`gpu`) and finds its pipelines in the context's cache.
 *
 * Nothing changes what is computed or said: under 'auto' a missing or software adapter becomes the same one note
 * (gpu/fallback.ts) and the CPU backend, but only once the file has been read — a bad file is still reported alone,
 * first; under 'gpu' the same GpuUnavailableError. The context is destroyed by `dispose`, on every path.
 */
import { GpuUnavailableError } from '../errors.js';
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { noteCpuFallback } from '../gpu/fallback.js';
import { peekPointShape, type PeekedShape } from '../io/peek.js';
import type { Backend, InputOptions } from './options.js';

export interface GpuAhead {
  /** The backend and context the call takes (`gpu: null` on the CPU), after the note or error the call would give. */
  settle(): Promise<{ backend: Backend; gpu: GpuContext | null }>;
  /** Destroys the context (after the warm-up, if any, has finished). */
  dispose(): Promise<void>;
}

/**
 * Starts creating the context for `caller` ('emst', …) under `backend`, and `warm(ctx, shape)` once both the context
 * and the file's shape are known. Call `settle()` after reading the file, and `dispose()` at the end, always.
 */
export function startGpuAhead(
  caller: string,
  backend: Backend,
  file: string,
  input: InputOptions,
  warm?: (ctx: GpuContext, shape: PeekedShape) => Promise<void>,
): GpuAhead {
  if (backend === 'cpu') {
    return { settle: async () => ({ backend, gpu: null }), dispose: async () => undefined };
  }
  const made = createGpuContext({ hardwareOnly: backend === 'auto' });
  made.catch(() => undefined); // settle() reports it
  const warmed = made.then(
    async (ctx) => {
      const shape = warm ? await peekPointShape(file, input) : null;
      if (shape) await warm!(ctx, shape);
    },
    () => undefined,
  );
  return {
    async settle() {
      // The warm-up has normally finished during the read; waiting for it keeps its buffers and the call's apart.
      await warmed;
      try {
        return { backend, gpu: await made };
      } catch (e) {
        if (!(e instanceof GpuUnavailableError) || backend === 'gpu') throw e;
        noteCpuFallback(caller, e.message);
        return { backend: 'cpu', gpu: null };
      }
    },
    async dispose() {
      await warmed;
      const ctx = await made.catch(() => null);
      await ctx?.destroy();
    },
  };
}
