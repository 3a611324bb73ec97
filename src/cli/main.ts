#!/usr/bin/env node
/** The `treeline` executable: runs the program and turns errors into exit codes (the only place that does). */
import { CommanderError } from 'commander';
import { buildProgram, exitCodeFor, processIo, EXIT } from './program.js';
import { ConnectionClosedError } from '../errors.js';

// `treeline … | head` closes the pipe early: stop quietly, as Unix tools do.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (e) {
  const code = exitCodeFor(e);
  // commander has already printed its own message (or the help) on stderr.
  if (!(e instanceof CommanderError)) processIo.log(`treeline: ${(e as Error).message}`);
  // A stack for what nobody meant to throw; a worker's closed connection is a known end (its message says it all).
  if (code === EXIT.internal && !(e instanceof ConnectionClosedError) && (e as Error).stack) {
    processIo.log((e as Error).stack!);
  }
  process.exitCode = code;
}
// Exit explicitly: Dawn's instance is released at teardown rather than by a garbage-collection finaliser running
// while the event loop drains (a finaliser of Dawn's node binding was seen to crash at exit under load).
process.exit(process.exitCode ?? 0);
