/** Printable ASCII without quote or backslash: a JSON string of it needs no escaping. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const BASE64 = Buffer.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
const QUOTE = 0x22;
const EQUALS = 0x3d;
const MINUS = 0x2d;
const ZERO = 0x30;

/**
 * JSON text written straight into a growable byte buffer (UTF-8), reused from batch to batch: the
 * relay's hot path writes each record's digits and its datagram's base64 here instead of building a
 * string per record and concatenating them.
 */
export class JsonBytes {
  private buffer: Buffer;
  /** Bytes written so far. */
  length = 0;

  constructor(capacity = 16 * 1024) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Bytes it can hold before it grows. */
  get capacity(): number {
    return this.buffer.length;
  }

  /** Starts over, keeping the memory. */
  reset(): void {
    this.length = 0;
  }

  /** A copy of what was written, in a buffer of its own. */
  copy(): Buffer {
    const out = Buffer.allocUnsafe(this.length);
    this.buffer.copy(out, 0, 0, this.length);
    return out;
  }

  /** Copies what was written into `target` at `offset`; the number of bytes copied. */
  copyTo(target: Buffer, offset: number): number {
    return this.buffer.copy(target, offset, 0, this.length);
  }

  /** One ASCII character, by its code. */
  byte(code: number): void {
    if (this.length === this.buffer.length) this.grow(1);
    this.buffer[this.length++] = code;
  }

  /** Text known to be ASCII (JSON punctuation, numbers as String() spells them), as is. */
  ascii(text: string): void {
    if (this.length + text.length > this.buffer.length) this.grow(text.length);
    this.length += this.buffer.write(text, this.length, "latin1");
  }

  /** What another writer holds. */
  append(other: JsonBytes): void {
    if (this.length + other.length > this.buffer.length) this.grow(other.length);
    this.length += other.copyTo(this.buffer, this.length);
  }

  /** A string as a JSON string: as JSON.stringify() writes it. */
  string(text: string): void {
    if (PLAIN.test(text)) {
      this.byte(QUOTE);
      this.ascii(text);
      this.byte(QUOTE);
      return;
    }
    const json = JSON.stringify(text);
    const bytes = Buffer.byteLength(json);
    if (this.length + bytes > this.buffer.length) this.grow(bytes);
    this.length += this.buffer.write(json, this.length, "utf8");
  }

  /**
   * A finite number as JSON.stringify() writes it: safe integers digit by digit, without a string;
   * others (fractions, beyond 2^53) through String(), which agrees with JSON for finite numbers.
   */
  number(value: number): void {
    if (!Number.isSafeInteger(value)) {
      this.ascii(String(value));
      return;
    }
    if (value < 0) {
      this.byte(MINUS);
      value = -value;
    }
    if (value < 1e9) {
      this.digits(value, 0);
      return;
    }
    // Beyond 32-bit integer arithmetic (timestamps in ms): the billions, then nine digits.
    let high = Math.floor(value / 1e9);
    let low = value - high * 1e9;
    if (low < 0) {
      high--;
      low += 1e9;
    } else if (low >= 1e9) {
      high++;
      low -= 1e9;
    }
    this.digits(high, 0);
    this.digits(low, 9);
  }

  /** An integer 0 ≤ n < 1e9 in decimal, padded with zeros to `width` digits. */
  private digits(n: number, width: number): void {
    let count = 1;
    for (let rest = n; rest >= 10; rest = (rest / 10) | 0) count++;
    if (count < width) count = width;
    if (this.length + count > this.buffer.length) this.grow(count);
    const buffer = this.buffer;
    let at = this.length + count;
    this.length = at;
    for (let i = 0; i < count; i++) {
      const quotient = (n / 10) | 0;
      buffer[--at] = ZERO + n - quotient * 10;
      n = quotient;
    }
  }

  /** Bytes `start` to `end` of `bytes` as a JSON string of their base64 (padded, as Buffer writes it). */
  base64String(bytes: Uint8Array, start: number, end: number): void {
    const size = 2 + 4 * Math.ceil((end - start) / 3);
    if (this.length + size > this.buffer.length) this.grow(size);
    const out = this.buffer;
    let at = this.length;
    out[at++] = QUOTE;
    let i = start;
    for (; i + 3 <= end; i += 3) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      out[at++] = BASE64[n >>> 18]!;
      out[at++] = BASE64[(n >>> 12) & 63]!;
      out[at++] = BASE64[(n >>> 6) & 63]!;
      out[at++] = BASE64[n & 63]!;
    }
    if (i < end) {
      const two = i + 1 < end;
      const n = (bytes[i]! << 16) | (two ? bytes[i + 1]! << 8 : 0);
      out[at++] = BASE64[n >>> 18]!;
      out[at++] = BASE64[(n >>> 12) & 63]!;
      out[at++] = two ? BASE64[(n >>> 6) & 63]! : EQUALS;
      out[at++] = EQUALS;
    }
    out[at++] = QUOTE;
    this.length = at;
  }

  private grow(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + needed));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }
}
