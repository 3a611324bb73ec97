/**
 * The one note `backend: 'auto'` gives when it runs on the CPU backend instead of a GPU (no adapter, a software
 * adapter: adapter.ts, or a device too small): once per process, on stderr, naming the call that ran and why —
 * `treeline: hdbscan runs on the CPU backend: the only WebGPU adapter (llvmpipe: …) is a software implementation …`.
 */
import { GpuUnavailableError } from '../errors.js';
import { createGpuContext, type GpuContext } from './context.js';

let noted = false;

/** Says once per process that `caller` ('emst', 'hdbscan', 'mstStats', 'graphMst') runs on the CPU, and why. */
export function noteCpuFallback(caller: string, reason: string): void {
  if (noted) return;
  noted = true;
  const first = reason.split('\n')[0].trim();
  // 'No WebGPU adapter …' reads 'no WebGPU adapter …' after a colon; 'WebGPU …' keeps its capital.
  const why = /^[A-Z][a-z]/.test(first) ? first[0].toLowerCase() + first.slice(1) : first;
  console.warn(`treeline: ${caller} runs on the CPU backend: ${why}${/[.!?]$/.test(why) ? '' : '.'}`);
}

/**
 * The one auto fallback of treeline's entry points (emst, hdbscan through it, mstStats, graphMst): backend 'cpu' runs
 * `onCpu`; otherwise `onGpu`, and under 'auto' a GpuUnavailableError from it (no adapter, only a software one, a
 * device too small) runs `onCpu` instead, with the note above. Every other error, and any error under 'gpu', is
 * the caller's.
 */
export async function gpuElseCpu<T>(
  caller: string,
  backend: 'auto' | 'gpu' | 'cpu',
  onGpu: () => Promise<T>,
  onCpu: () => Promise<T> | T,
): Promise<T> {
  if (backend !== 'cpu') {
    try {
      return await onGpu();
    } catch (e) {
      if (!(e instanceof GpuUnavailableError) || backend === 'gpu') throw e;
      noteCpuFallback(caller, e.message);
    }
  }
  return onCpu();
}

/**
 * The backend and GPU context of a batch of calls (realisations, files): one context created once and handed to
 * every call as `gpu` (each call then skips adapter and device creation), destroyed by the caller. Under 'cpu', or
 * 'auto' without a hardware adapter (the note above, once), `{ backend: 'cpu', gpu: null }`: every call runs on the
 * CPU without asking for an adapter again. Under 'gpu' a missing adapter is the caller's GpuUnavailableError.
 */
export async function batchBackend(
  caller: string,
  backend: 'auto' | 'gpu' | 'cpu',
): Promise<{ backend: 'auto' | 'gpu' | 'cpu'; gpu: GpuContext | null }> {
  if (backend === 'cpu') return { backend, gpu: null };
  try {
    return { backend, gpu: await createGpuContext({ hardwareOnly: backend === 'auto' }) };
  } catch (e) {
    if (!(e instanceof GpuUnavailableError) || backend === 'gpu') throw e;
    noteCpuFallback(caller, e.message);
    return { backend: 'cpu', gpu: null };
  }
}
