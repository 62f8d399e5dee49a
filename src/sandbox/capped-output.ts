/**
 * Collects a child's output up to a byte cap: the first part and the last part are kept, and what was
 * dropped in between is replaced by an honest marker saying how many bytes are missing.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(readonly capBytes: number) {
    this.headCap = Math.floor(capBytes / 4);
    this.tailCap = capBytes - this.headCap;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    if (this.tailBytes > this.tailCap * 2) this.compactTail();
  }

  /** Bytes that did not fit. */
  get truncatedBytes(): number {
    return this.dropped + Math.max(0, this.tailBytes - this.tailCap);
  }

  toString(): string {
    this.compactTail();
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (this.dropped === 0) return head + tail;
    return `${head}\n[… ${this.dropped} bytes truncated]\n${tail}`;
  }

  private compactTail(): void {
    if (this.tailBytes <= this.tailCap) return;
    const all = Buffer.concat(this.tail);
    const excess = all.length - this.tailCap;
    this.dropped += excess;
    this.tail = [all.subarray(excess)];
    this.tailBytes = this.tailCap;
  }
}

/** The last `maxChars` characters of a text, marked when cut. */
export function tailOf(text: string, maxChars = 4000): string {
  if (text.length <= maxChars) return text;
  return `[… ${text.length - maxChars} chars before]\n${text.slice(-maxChars)}`;
}
