/**
 * Is a WebGPU adapter a software implementation? Mesa's lavapipe (llvmpipe), SwiftShader and Microsoft's WARP run
 * the shaders on the CPU's cores, slower than the CPU backend of the same machine (bench/RESULTS.md), so
 * `backend: 'auto'` never picks one; `'gpu'` still does (the tests run
 * the real WGSL on lavapipe on purpose).
 *
 * WebGPU says it two ways: `isFallbackAdapter` (on `GPUAdapterInfo` since 2024, on `GPUAdapter` before; Dawn sets it
 * for adapters of type CPU, which lavapipe, SwiftShader and WARP are), and, where an implementation leaves that out,
 * the adapter's own names: lavapipe reports architecture 'software' and description 'llvmpipe: Mesa …'.
 */

/** What `softwareAdapterReason` reads: `GPUAdapterInfo`'s strings and the fallback flag, wherever it was found. */
export interface AdapterFacts {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

/** Names of CPU implementations of WebGPU's backends, as whole words in an adapter's strings. */
const SOFTWARE_NAMES = /\b(llvmpipe|lavapipe|swiftshader|warp|software|cpu)\b|basic render driver/i;

/**
 * Why `facts` describe a software (CPU) adapter — "it reports isFallbackAdapter", "its description names
 * llvmpipe" — or null for a hardware GPU.
 */
export function softwareAdapterReason(facts: AdapterFacts): string | null {
  if (facts.isFallbackAdapter === true) return 'it reports isFallbackAdapter';
  for (const field of ['architecture', 'description', 'device', 'vendor'] as const) {
    const m = SOFTWARE_NAMES.exec(facts[field] ?? '');
    if (m) return `its ${field} names ${m[0]}`;
  }
  return null;
}

/** A short name for messages: the description, else the device, else the vendor, else 'unnamed'. */
export function adapterName(facts: AdapterFacts): string {
  return facts.description || facts.device || facts.vendor || 'unnamed';
}
