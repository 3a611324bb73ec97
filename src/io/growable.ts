/** A Float32Array that grows by doubling, so readers hold one copy of the data (plus slack), never a JS array. */
export class GrowableF32 {
  private data: Float32Array;
  length = 0;

  constructor(initial = 1 << 16) {
    this.data = new Float32Array(initial);
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  /** The values pushed so far (a copy trimmed to length). */
  toArray(): Float32Array {
    return this.data.slice(0, this.length);
  }
}
