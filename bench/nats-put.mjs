// Issue 20: the object-store put's speed on loopback — the library's putBlob (one PubAck round trip per chunk) against
// putBytes' pipelined put (src/distributed/nats.ts, putPipelined: `window` chunks unacknowledged). Starts its own
// nats-server -js -sd <temp dir> on a random loopback port, stores MB megabytes of random bytes in chunks of
// bodyLimit (1 MB − 16 KiB on a default server) under one name, REPS times per mode with the modes alternated, the
// object deleted between puts (not timed), and prints each put's MB/s and CPU seconds (this process, the server)
// and each mode's median. From the repository
// root, with a build in DIST (default dist; `npx tsc -p tsconfig.build.json --outDir <dir>` builds one):
//   node bench/nats-put.mjs [MB=512] [REPS=3] [WINDOWS=0,16]      (window 0 = the library's putBlob)
import { randomFillSync } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocalNatsServer } from './nats-local.mjs';

const [mbText = '512', repsText = '3', windowsText = '0,16'] = process.argv.slice(2);
const [mb, reps] = [Number(mbText), Number(repsText)];
const windows = windowsText.split(',').map(Number);
const dist = process.env.DIST ?? 'dist';
const root = pathToFileURL(`${isAbsolute(dist) ? dist : resolve(dist)}/`);
const { connectNats, bodyLimit, putBytes } = await import(new URL('distributed/nats.js', root).href);
const { Objm } = await import('@nats-io/obj');

const server = await startLocalNatsServer('treeline-nats-put-');
const serverCpu = server.cpu;
const url = server.url;
try {
  const nc = await connectNats({ url });
  const os = await new Objm(nc).create('put-bench');
  const bytes = new Uint8Array(mb << 20);
  for (let at = 0; at < bytes.length; at += 1 << 16) randomFillSync(bytes.subarray(at, at + (1 << 16)));
  const chunk = bodyLimit(nc);
  console.log(`${mb} MB in ${chunk}-byte chunks, ${reps} puts per window, alternated; windows ${windows.join(', ')}`);
  const rates = new Map(windows.map((w) => [w, []]));
  for (let r = 0; r < reps; r++) {
    for (const w of windows) {
      const [c0, k0] = [process.cpuUsage(), serverCpu()];
      const t0 = performance.now();
      await putBytes(os, 'blob', bytes, chunk, w);
      const s = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      const cpu = `CPU s: this process ${((c.user + c.system) / 1e6).toFixed(2)}, server ${(serverCpu() - k0).toFixed(2)}`;
      const info = await os.info('blob');
      if (info.size !== bytes.length) throw new Error(`stored ${info.size} bytes, not ${bytes.length}`);
      await os.delete('blob');
      rates.get(w).push(mb / s);
      console.log(`run ${r + 1} window ${w === 0 ? '0 (putBlob)' : w}: ${s.toFixed(2)} s, ${(mb / s).toFixed(0)} MB/s (${cpu})`);
    }
  }
  for (const [w, v] of rates) {
    const sorted = [...v].sort((a, b) => a - b);
    console.log(
      `window ${w === 0 ? '0 (putBlob)' : w}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} MB/s ` +
        `(${v.map((x) => x.toFixed(0)).join(', ')})`,
    );
  }
  await os.destroy();
  await nc.close();
} finally {
  await server.stop();
}
