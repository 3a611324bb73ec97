// Issue 20: the object-store put's speed on loopback — the library's putBlob (one PubAck round trip per chunk) against
// putBytes' pipelined put (src/distributed/nats.ts, putPipelined: `window` chunks unacknowledged). Starts its own
// nats-server -js -sd <temp dir> on a random loopback port, stores MB megabytes of random bytes in chunks of
// bodyLimit (1 MB − 16 KiB on a default server) under one name, REPS times per mode with the modes alternated, the
// object deleted between puts (not timed), and prints each put's MB/s and CPU seconds (this process, the server)
// and each mode's median. From the repository
// root, with a build in DIST (default dist; `npx tsc -p tsconfig.build.json --outDir <dir>` builds one):
//   node bench/nats-put.mjs [MB=512] [REPS=3] [WINDOWS=0,16]      (window 0 = the library's putBlob)
import { spawn, spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [mbText = '512', repsText = '3', windowsText = '0,16'] = process.argv.slice(2);
const [mb, reps] = [Number(mbText), Number(repsText)];
const windows = windowsText.split(',').map(Number);
const dist = process.env.DIST ?? 'dist';
const root = pathToFileURL(`${isAbsolute(dist) ? dist : resolve(dist)}/`);
const { connectNats, bodyLimit, putBytes } = await import(new URL('distributed/nats.js', root).href);
const { Objm } = await import('@nats-io/obj');

const bin = ['nats-server', '/usr/sbin/nats-server'].find((b) => !spawnSync(b, ['--version']).error);
if (!bin) throw new Error('nats-server is not installed (apt-get install nats-server)');
const store = mkdtempSync(join(tmpdir(), 'treeline-nats-put-'));
const server = spawn(bin, ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', store], { stdio: ['ignore', 'pipe', 'pipe'] });
/** The server's user + system CPU seconds so far (/proc/<pid>/stat, clock ticks of 1/100 s). */
const serverCpu = () => {
  const f = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
let log = '';
const url = await new Promise((ok, fail) => {
  const timer = setTimeout(() => fail(new Error(`nats-server did not start:\n${log}`)), 20_000);
  const onData = (s) => {
    log += s;
    const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
    if (m && /Server is ready/.test(log)) {
      clearTimeout(timer);
      ok(`nats://${m[1]}`);
    }
  };
  server.stdout.setEncoding('utf8').on('data', onData);
  server.stderr.setEncoding('utf8').on('data', onData);
});
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
  server.kill('SIGTERM');
  await new Promise((ok) => server.once('exit', ok));
  rmSync(store, { recursive: true, force: true });
}
