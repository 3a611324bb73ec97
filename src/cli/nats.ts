/**
 * The NATS options every distributed command shares (`treeline worker`, and `--nats` on emst, hdbscan and stats):
 * the server URL and what authenticates this process to it (src/distributed/nats.ts).
 */
import type { Command } from 'commander';
import { InputError } from '../errors.js';
import { choice } from './options.js';
import type { NatsOptions } from '../distributed/nats.js';
import { PARTITIONED_METHODS, type PartitionedEmstMethod } from '../distributed/types.js';

export interface NatsCliOptions {
  nats?: string;
  natsCreds?: string;
  natsTlsCert?: string;
  natsTlsKey?: string;
  natsTlsCa?: string;
  natsAllowAnonymous?: boolean;
  natsLocalDir?: string;
  natsMethod?: PartitionedEmstMethod;
}

/** --nats <url> (required for `worker`) and the credential and TLS options. */
export function addNatsOptions(cmd: Command, what: string, required = false): Command {
  const url = '--nats <url>';
  const help = `NATS server URL (nats://host:4222)${what}`;
  (required ? cmd.requiredOption(url, help) : cmd.option(url, help))
    .option('--nats-creds <file>', 'NATS credentials file (JWT + NKey seed) for a server that requires them')
    .option('--nats-tls-cert <file>', 'TLS client certificate (PEM), with --nats-tls-key')
    .option('--nats-tls-key <file>', 'TLS client key (PEM)')
    .option('--nats-tls-ca <file>', "CA certificate (PEM) that signed the server's certificate")
    .option(
      '--nats-allow-anonymous',
      'connect without credentials to a server that is not on loopback (trusted networks only)',
    );
  return cmd;
}

/** The connection options of a command's parsed flags (its --nats URL must be set). */
export function natsOptionsOf(o: NatsCliOptions, name: string): NatsOptions {
  return {
    url: o.nats!,
    creds: o.natsCreds,
    tlsCert: o.natsTlsCert,
    tlsKey: o.natsTlsKey,
    tlsCa: o.natsTlsCa,
    allowAnonymous: !!o.natsAllowAnonymous,
    name,
  };
}

/**
 * --nats-local-dir on a command that coordinates a partitioned run (emst, hdbscan): the folder where workers on
 * this host find the partitions as files (src/distributed/nats.local.ts).
 */
export function addLocalDirOption(cmd: Command): Command {
  return cmd.option(
    '--nats-local-dir <dir>',
    "with --nats: folder where workers on this host read the partitions and leave large results as files instead of through the object store (default /dev/shm; 'none': the object store alone)",
  );
}

/** cluster.localDir from --nats-local-dir: undefined (the default folder), a folder, or false ('none'). */
export function localDirOf(o: NatsCliOptions): string | false | undefined {
  return o.natsLocalDir === 'none' ? false : o.natsLocalDir;
}

/**
 * --nats-method on a command that coordinates a partitioned run (emst, hdbscan with one file): how the partitions'
 * trees are joined (cluster.method; default TREELINE_PARTITIONED_METHOD, else rounds).
 */
export function addNatsMethodOption(cmd: Command): Command {
  return cmd.option(
    '--nats-method <m>',
    "with --nats: how the partitions' trees are joined: rounds (Borůvka rounds: the least work, for CPU workers) | pairs (an MST of every pair of partitions: for GPU workers) | pairs-kruskal (default: TREELINE_PARTITIONED_METHOD, else rounds)",
    choice('--nats-method', PARTITIONED_METHODS),
  );
}

/** Refuses a partitioned run's options without --nats (they would be ignored: the run would be local). */
export function checkNatsOnly(o: NatsCliOptions & { partitions?: number; runId?: string }): void {
  if (o.nats) return;
  const given = [
    ['--partitions', o.partitions],
    ['--run-id', o.runId],
    ['--nats-method', o.natsMethod],
    ['--nats-local-dir', o.natsLocalDir],
  ].filter(([, v]) => v !== undefined);
  if (given.length > 0) {
    const flags = given.map(([f]) => f).join(', ');
    throw new InputError(
      `${flags} ${given.length === 1 ? 'applies' : 'apply'} only to a run on workers: add --nats <url>.`,
    );
  }
}
