/**
 * One run of a command that computes and writes files (emst, hdbscan, stats, mst, predict), from its first second to
 * its last (issue 15, §3 and defects 4 and 7):
 *   1. every output path (-o, --save-model, --plot) is checked before anything is read or computed: a missing
 *      folder or a path that cannot be written is an input error at once, naming the option and the path;
 *   2. SIGINT (Ctrl-C) and SIGTERM abort the AbortSignal handed to the library, which stops at its next check;
 *      a second signal gives up at once (the default action of that signal, after removing the temporaries);
 *   3. the files go through one AtomicOutputs (src/io/write.ts): renamed into place only if the whole run succeeded,
 *      removed on any failure or interrupt — an existing file is never truncated by a failed run;
 *   4. a Progress (progress.ts) shows each phase.
 * Exit codes come from main.ts: an interrupt is InterruptError (130 for SIGINT, 143 for SIGTERM).
 */
import { AbortError } from '../errors.js';
import { AtomicOutputs, checkOutputPath, type OutputKind } from '../io/write.js';
import { Progress } from './progress.js';
import type { CliIo } from './program.js';

/** The run was stopped by a signal: nothing was written. */
export class InterruptError extends AbortError {
  override name = 'InterruptError';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted (${signal}); no output was written.`);
  }
}

/** What a command's work gets: the signal for the library, the outputs to write through, the progress to report. */
export interface CommandRun {
  signal: AbortSignal;
  outputs: AtomicOutputs;
  progress: Progress;
}

/** An output path to check first: the option that named it and whether a file or a folder goes there. */
export interface OutputPath {
  path: string | undefined;
  option: string;
  kind?: OutputKind;
}

/** Runs `work` as described above; the outputs are committed only when it returns. */
export async function runCommand<T>(
  io: CliIo,
  command: string,
  options: { verbose?: boolean; outputs?: OutputPath[] },
  work: (run: CommandRun) => Promise<T>,
): Promise<T> {
  for (const o of options.outputs ?? []) if (o.path !== undefined) checkOutputPath(o.path, o.option, o.kind);
  const outputs = new AtomicOutputs();
  const progress = new Progress(io, command, { verbose: options.verbose });
  const controller = new AbortController();
  let caught: 'SIGINT' | 'SIGTERM' | null = null;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (caught) {
      // A second signal: the work did not stop in time (a long phase between checks). Leave nothing behind and
      // end as that signal ends a process.
      outputs.discard();
      progress.done();
      detach();
      process.kill(process.pid, signal);
      return;
    }
    caught = signal;
    progress.phase(`interrupted (${signal}), stopping`);
    controller.abort(new InterruptError(signal));
  };
  const onInt = (): void => onSignal('SIGINT');
  const onTerm = (): void => onSignal('SIGTERM');
  const detach = (): void => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    const result = await work({ signal: controller.signal, outputs, progress });
    // Important! Work that finished in spite of the signal (a phase that does not check it) must not replace files.
    if (caught) throw new InterruptError(caught);
    await outputs.commit();
    return result;
  } catch (e) {
    outputs.discard();
    if (caught) throw new InterruptError(caught);
    throw e;
  } finally {
    detach();
    progress.done();
  }
}
