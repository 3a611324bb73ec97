/**
 * The one note `backend: 'auto'` gives when it runs on the CPU backend instead of a GPU (no adapter, a software
 * adapter: adapter.ts, or a device too small): once per process, on stderr, naming the call that ran and why —
 * `treeline: hdbscan runs on the CPU backend: the only WebGPU adapter (llvmpipe: …) is a software implementation …`.
 */
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
