/** Pulls lines and fixed-size pieces out of a stream of chunks. */
export class ChunkReader {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async more(): Promise<void> {
    const next = await this.source.next();
    if (next.done) throw new Error('git cat-file ended early');
    this.buf = this.buf.length ? Buffer.concat([this.buf, next.value]) : next.value;
  }

  async line(): Promise<Buffer> {
    for (;;) {
      const nl = this.buf.indexOf(10);
      if (nl >= 0) {
        const line = this.buf.subarray(0, nl);
        this.buf = this.buf.subarray(nl + 1);
        return line;
      }
      await this.more();
    }
  }

  async exact(n: number): Promise<Buffer> {
    while (this.buf.length < n) await this.more();
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The next `n` bytes as chunks; the caller must drain it before reading on. */
  async *take(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0) await this.more();
      const piece = this.buf.subarray(0, Math.min(left, this.buf.length));
      this.buf = this.buf.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }
}
