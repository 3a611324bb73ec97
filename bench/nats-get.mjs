// Issue 20: the object-store read's speed on loopback — the library's get (an ordered push consumer with flow
// control; TREELINE_NATS_GET_WINDOW=0) against getMessage's pull read (src/distributed/nats.ts, readPulled: `window`
// chunks requested ahead, the SHA-256 on a hashing thread). Starts its own nats-server -js -sd <temp dir> on a
// random loopback port, stores a task message of MB megabytes (one Float32Array of random bits) in chunks of
// bodyLimit (1 MB − 16 KiB on a default server), then reads it back through getMessage REPS times per window with
// the windows alternated (each read into a fresh array, as a worker's or the coordinator's are; `shared`: into
// shared memory, the coordinator's results), checks every byte, and prints each read's MB/s and CPU seconds (this
// process, all its threads; its main thread alone; the server) and each window's median. From the repository root, with a build in DIST
// (default dist; `npx tsc -p tsconfig.build.json --outDir <dir>` builds one):
//   node bench/nats-get.mjs [MB=512] [REPS=3] [WINDOWS=0,16] [shared]      (window 0 = the library's get)
import { randomFillSync } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { procCpu, startLocalNatsServer } from './nats-local.mjs';

const [mbText = '512', repsText = '3', windowsText = '0,16', sharedText = ''] = process.argv.slice(2);
const [mb, reps] = [Number(mbText), Number(repsText)];
const windows = windowsText.split(',').map(Number);
const shared = sharedText === 'shared';
const dist = process.env.DIST ?? 'dist';
const root = pathToFileURL(`${isAbsolute(dist) ? dist : resolve(dist)}/`);
const { connectNats, bodyLimit, getMessage, putBytes } = await import(new URL('distributed/nats.js', root).href);
const { encodeTaskMessage } = await import(new URL('distributed/nats.codec.js', root).href);
const { Objm } = await import('@nats-io/obj');

const server = await startLocalNatsServer('treeline-nats-get-');
const serverCpu = server.cpu;
const url = server.url;
/** This process' main thread's user + system CPU seconds so far. */
const mainCpu = () => procCpu(`/proc/self/task/${process.pid}/stat`);
try {
  const nc = await connectNats({ url });
  const os = await new Objm(nc).create('get-bench');
  const values = new Float32Array((mb << 20) >>> 2);
  const raw = new Uint8Array(values.buffer);
  for (let at = 0; at < raw.length; at += 1 << 16) randomFillSync(raw.subarray(at, at + (1 << 16)));
  const chunk = bodyLimit(nc);
  await putBytes(os, 'blob', encodeTaskMessage({ meta: { mb }, arrays: { values } }), chunk);
  const info = await os.info('blob');
  console.log(
    `${(info.size / 2 ** 20).toFixed(1)} MiB in ${info.chunks} chunks of ${chunk} bytes, ${reps} reads per window` +
      `${shared ? ' into shared memory' : ''}, alternated; windows ${windows.join(', ')}`,
  );
  const rates = new Map(windows.map((w) => [w, []]));
  for (let r = 0; r < reps; r++) {
    for (const w of windows) {
      process.env.TREELINE_NATS_GET_WINDOW = String(w);
      const [c0, k0, m0] = [process.cpuUsage(), serverCpu(), mainCpu()];
      const t0 = performance.now();
      const msg = await getMessage(os, 'blob', { shared });
      const s = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      const busy = mainCpu() - m0;
      const cpu = `CPU s: this process ${((c.user + c.system) / 1e6).toFixed(2)}, its main thread ${busy.toFixed(2)}, server ${(serverCpu() - k0).toFixed(2)}`;
      const got = msg.arrays.values;
      const back = new Uint8Array(got.buffer, got.byteOffset, got.byteLength);
      if (!Buffer.from(back.buffer, back.byteOffset, back.byteLength).equals(Buffer.from(raw.buffer))) throw new Error(`window ${w}: the values read back differ`);
      rates.get(w).push(mb / s);
      console.log(`run ${r + 1} window ${w === 0 ? '0 (get)' : w}: ${s.toFixed(2)} s, ${(mb / s).toFixed(0)} MB/s (${cpu})`);
    }
  }
  for (const [w, v] of rates) {
    const sorted = [...v].sort((a, b) => a - b);
    console.log(
      `window ${w === 0 ? '0 (get)' : w}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} MB/s ` +
        `(${v.map((x) => x.toFixed(0)).join(', ')})`,
    );
  }
  await os.destroy();
  await nc.close();
} finally {
  await server.stop();
}
