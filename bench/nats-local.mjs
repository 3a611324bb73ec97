// The loopback nats-server of bench/nats-put.mjs and bench/nats-get.mjs: `nats-server -js -sd <temp dir>` on a random
// port, its URL once it is ready, its CPU seconds, and stop() (the server ended, its store removed).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A task's user + system CPU seconds so far from its /proc stat file (clock ticks of 1/100 s). */
export function procCpu(statPath) {
  const f = readFileSync(statPath, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Starts the server (its store in a temporary folder named after `prefix`); resolves once it accepts clients. */
export async function startLocalNatsServer(prefix) {
  const bin = ['nats-server', '/usr/sbin/nats-server'].find((b) => !spawnSync(b, ['--version']).error);
  if (!bin) throw new Error('nats-server is not installed (apt-get install nats-server)');
  const store = mkdtempSync(join(tmpdir(), prefix));
  const server = spawn(bin, ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', store], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  return {
    url,
    /** The server's user + system CPU seconds so far. */
    cpu: () => procCpu(`/proc/${server.pid}/stat`),
    async stop() {
      server.kill('SIGTERM');
      await new Promise((ok) => server.once('exit', ok));
      rmSync(store, { recursive: true, force: true });
    },
  };
}
