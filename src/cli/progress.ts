/**
 * The CLI's progress from the first second to the last (issue 15, "today the first frame appears at 68–89 %"): every
 * phase of a command — reading the input, the library's phases (BVH, k-NN, each Borůvka round, clustering; its
 * `onProgress(fraction, phase)`, src/progress.ts) and writing — is shown as it starts.
 *
 * Where stderr is a terminal (`io.progress`, program.ts): one line redrawn with `\r`,
 *   `emst  Borůvka round 3  [#########...............]  38%  4.2 s`
 * at each new phase, at most every 100 ms otherwise, and every half second so that the elapsed time moves while a
 * phase runs on other threads; cleared when the command ends. Elsewhere nothing, or with --verbose one line per
 * phase on stderr (`emst: k-NN (10%, 0.4 s)`), which is what logs and tests read.
 */
import type { ProgressCallback } from '../progress.js';
import type { CliIo } from './program.js';

const WIDTH = 24;

/** Elapsed time as `0.4 s`, `12.3 s`, `3 min 07 s`. */
export function formatElapsed(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(Math.floor(s - 60 * m)).padStart(2, '0')} s`;
}

/** The bar line (without the leading `\r`): command, phase, bar, whole percentage, elapsed time. */
export function renderBar(command: string, phase: string, fraction: number, elapsedMs: number): string {
  const f = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(WIDTH * f);
  return `${command}  ${phase}  [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]  ${String(Math.floor(100 * f)).padStart(3)}%  ${formatElapsed(elapsedMs)}`;
}

/** The --verbose line of a phase that starts. */
export function renderPhaseLine(command: string, phase: string, fraction: number, elapsedMs: number): string {
  return `${command}: ${phase} (${Math.floor(100 * Math.min(1, Math.max(0, fraction)))}%, ${formatElapsed(elapsedMs)})`;
}

export interface ProgressOptions {
  /** One line per phase on stderr (also on a terminal, above the bar). */
  verbose?: boolean;
  /** The clock (ms); tests pass their own. */
  now?: () => number;
  /** Redraws the bar this often while nothing reports (ms; 0: never). */
  tickMs?: number;
}

/** One command's progress: `phase()` for the CLI's own phases, `onProgress` for the library's, `done()` at the end. */
export class Progress {
  private readonly start: number;
  private readonly now: () => number;
  private phaseName = '';
  private fraction = 0;
  private drawnAt = -Infinity;
  private drawn = false;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private finished = false;

  constructor(
    private readonly io: CliIo,
    private readonly command: string,
    private readonly options: ProgressOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.start = this.now();
    const tick = options.tickMs ?? 500;
    if (io.progress && tick > 0) {
      this.ticker = setInterval(() => this.draw(true), tick);
      this.ticker.unref?.();
    }
  }

  /** The library's callback: a new phase is shown at once, a new fraction at most every 100 ms. */
  readonly onProgress: ProgressCallback = (fraction, phase) => {
    if (phase !== undefined && phase !== this.phaseName) this.phase(phase, fraction);
    else {
      this.fraction = Math.max(this.fraction, fraction);
      this.draw(false);
    }
  };

  /** Starts a phase (at `fraction` of the work, or where the last one was). */
  phase(name: string, fraction = this.fraction): void {
    if (this.finished) return;
    this.phaseName = name;
    this.fraction = Math.max(this.fraction, fraction);
    if (this.options.verbose) {
      this.clear();
      this.io.log(renderPhaseLine(this.command, name, this.fraction, this.now() - this.start));
    }
    this.draw(true);
  }

  /** Logs a message (a warning) on stderr without breaking the bar: the bar is cleared, then drawn again. */
  log(message: string): void {
    this.clear();
    this.io.log(message);
    this.draw(true);
  }

  /** Stops the ticker and clears the bar. */
  done(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.ticker) clearInterval(this.ticker);
    this.clear();
  }

  private draw(force: boolean): void {
    if (!this.io.progress || this.finished || this.phaseName === '') return;
    const t = this.now();
    if (!force && t - this.drawnAt < 100) return;
    this.drawnAt = t;
    this.drawn = true;
    this.io.progress(`\r\x1b[2K${renderBar(this.command, this.phaseName, this.fraction, t - this.start)}`);
  }

  private clear(): void {
    if (!this.drawn) return;
    this.drawn = false;
    this.io.progress?.('\r\x1b[2K');
  }
}
