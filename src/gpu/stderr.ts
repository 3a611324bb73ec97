/**
 * Keeps Dawn's and the Vulkan loader's native chatter off the user's stderr (issue 15 §2).
 *
 * When an instance first enumerates its adapters (the first `requestAdapter`), Dawn clamps two limits that Vulkan
 * drivers report as 10^6 — lavapipe and NVIDIA's alike — and says so with `fprintf(stderr, …)`:
 *
 *   Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit …
 *   Warning: maxDynamicStorageBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit …
 *
 * and the Vulkan loader, which Dawn starts then, prints its own errors (with VK_LOADER_DEBUG, everything) there too.
 * Neither goes through a callback the `webgpu` package lets us set, and Node cannot dup2(), so for the length of that
 * call file descriptor 2 is pointed at an unlinked temporary file — close(2) then open() takes the lowest free
 * descriptor, 2 — and reopened afterwards through /proc/self/fd from a descriptor kept to the original. Every captured
 * line that is not one of those is then written to the real stderr, so nothing else is lost (only delayed).
 *
 * Only where that is safe: Linux (/proc), Node's main thread (descriptors are per process; workers may write),
 * nothing queued on process.stderr, and stderr a terminal, a pipe, or a regular file other than stdout's (reopened
 * for appending; one shared with stdout, `>log 2>&1`, would lose its shared offset). A socket (what Node's
 * child_process gives a child for 'pipe') cannot be reopened through /proc: there the lines still pass, as they do
 * everywhere else it is not safe. With VK_LOADER_DEBUG set the user asked for the loader's lines, and they pass.
 *
 * Node built-ins are imported through computed specifiers, so that the browser bundle (which never calls this: it
 * has navigator.gpu) stays free of them (scripts/build-browser.mjs checks).
 */

/** Dawn's two limit warnings, whatever the numbers. */
const DAWN_LIMIT_WARNING = /^Warning: maxDynamic(?:Uniform|Storage)BuffersPerPipelineLayout artificially reduced from /;
/**
 * The Vulkan loader's lines: 'ERROR: [Loader Message] Code 0 : …' (loader 1.2/1.3.2xx), 'WARNING:          vk…' and
 * 'WARNING | LAYER:  …' (1.3.2xx+: a severity, optional '| type' parts, a colon and aligned spaces).
 */
const LOADER_LINE = /^(?:ERROR|WARNING|INFO|DEBUG|PERF)(?:\s*\|\s*[A-Z]+)*:(?:\s{2,}|\s*\[Loader Message\])/;

/** Whether `line` is one of the native lines kept from the user (exported for the tests). */
export function isNativeNoise(line: string, env: Record<string, string | undefined> = process.env): boolean {
  if (DAWN_LIMIT_WARNING.test(line)) return true;
  return !env.VK_LOADER_DEBUG && LOADER_LINE.test(line);
}

/**
 * `text` byte for byte but for the noise lines (exported for the tests). A noise line may follow a progress line drawn
 * without a newline (redrawn with '\r'): the noise is cut from where it starts, the progress line is kept.
 */
export function withoutNoise(text: string, env: Record<string, string | undefined> = process.env): string {
  return text
    .split(/(?<=\n)/)
    .map((piece) => {
      const body = piece.replace(/\r?\n$/, '');
      for (const m of body.matchAll(/Warning: |ERROR|WARNING|INFO|DEBUG|PERF/g)) {
        if (isNativeNoise(body.slice(m.index), env)) return piece.slice(0, m.index);
      }
      return piece;
    })
    .join('');
}

type Fs = typeof import('node:fs');

async function builtin<T>(name: string): Promise<T> {
  return (await import(/* @vite-ignore */ `node:${name}`)) as T;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `fn` with file descriptor 2 captured (see above), then passes on what was not native noise. One capture at a
 * time per process: calls wait their turn.
 */
export function quietNativeStderr<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(() => capture(fn));
  queue = run.catch(() => undefined);
  return run;
}

async function capture<T>(fn: () => Promise<T>): Promise<T> {
  const redirect = await redirectStderr();
  if (!redirect) return fn();
  try {
    return await fn();
  } finally {
    const kept = withoutNoise(redirect.restore());
    if (kept.length > 0) process.stderr.write(kept);
  }
}

/** Points fd 2 at a temporary file; `restore()` points it back and returns what was written. Null where unsafe. */
async function redirectStderr(): Promise<{ restore: () => string } | null> {
  if (typeof process === 'undefined' || process.platform !== 'linux') return null;
  const [fs, os, path, threads] = await Promise.all([
    builtin<Fs>('fs'),
    builtin<typeof import('node:os')>('os'),
    builtin<typeof import('node:path')>('path'),
    builtin<typeof import('node:worker_threads')>('worker_threads'),
  ]);
  if (!threads.isMainThread || process.stderr.writableLength > 0) return null;
  const { O_WRONLY, O_NONBLOCK, O_NOCTTY, O_APPEND, O_RDWR, O_CREAT, O_EXCL } = fs.constants;
  let saved = -1;
  let flags = O_WRONLY | O_NOCTTY;
  try {
    const st = fs.fstatSync(2);
    if (st.isFile()) {
      const out = fs.fstatSync(1);
      if (out.dev === st.dev && out.ino === st.ino) return null;
      flags |= O_APPEND;
    } else if (st.isFIFO()) {
      // Opening a pipe's write end whose reader has gone fails (ENXIO) instead of waiting for a reader.
      flags |= O_NONBLOCK;
    } else if (!st.isCharacterDevice()) {
      return null;
    }
    saved = fs.openSync('/proc/self/fd/2', flags);
  } catch {
    if (saved >= 0) fs.closeSync(saved);
    return null;
  }
  const file = path.join(
    os.tmpdir(),
    `treeline-stderr-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  );
  let tmp = -1;
  try {
    tmp = fs.openSync(file, O_RDWR | O_CREAT | O_EXCL, 0o600);
    fs.unlinkSync(file);
  } catch {
    if (tmp >= 0) fs.closeSync(tmp);
    fs.closeSync(saved);
    return null;
  }
  fs.closeSync(2);
  const two = fs.openSync(`/proc/self/fd/${tmp}`, O_WRONLY);
  if (two !== 2) {
    // Another thread took descriptor 2 between the close and the open: give it back as it was, as far as we can.
    fs.closeSync(two);
    fs.closeSync(tmp);
    fs.closeSync(saved);
    return null;
  }
  return {
    restore: () => {
      let text = '';
      try {
        const size = fs.fstatSync(tmp).size;
        const buf = Buffer.alloc(size);
        if (size > 0) fs.readSync(tmp, buf, 0, size, 0);
        text = buf.toString('utf8');
      } catch {
        // What cannot be read back is dropped; the restore below must still happen.
      }
      fs.closeSync(2);
      fs.openSync(`/proc/self/fd/${saved}`, flags);
      fs.closeSync(saved);
      fs.closeSync(tmp);
      return text;
    },
  };
}
