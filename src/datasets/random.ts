/**
 * Seeded random numbers for generators and benchmarks: the same seed gives the same data on every machine.
 * mulberry32 (Tommy Ettinger's 32-bit mixer) for uniforms; Box–Muller for normals.
 */
/** The inverse of the state's step 0x6d2b79f5 modulo 2^32 (the step is odd). */
const STEP_INVERSE = 0xdc58aa5d;

export class Random {
  private state: number;
  private spare: number | null = null;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /**
   * Skips `count` uniforms (an integer ≥ 0; the state advances by a constant per draw, so count · step modulo 2^32)
   * and drops a pending normal: the generator then draws what it would after `count` calls of next() from here.
   * The threaded generators (generate.threads.ts) start each range of values this way.
   */
  skip(count: number): void {
    this.state = (this.state + Math.imul(count % 4294967296 >>> 0, 0x6d2b79f5)) >>> 0;
    this.spare = null;
  }

  /** The uniforms drawn since `from` (an earlier stateWord() of this generator; fewer than 2^32 draws between). */
  drawsSince(from: number): number {
    return Math.imul((this.state - from) >>> 0, STEP_INVERSE) >>> 0;
  }

  /** The state word (for drawsSince). */
  stateWord(): number {
    return this.state;
  }

  /** Uniform u32. */
  u32(): number {
    return (this.next() * 4294967296) >>> 0;
  }

  /** Standard normal (Box–Muller, both values used). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}
