import { SnapshotDecodeError, SnapshotEncodeError } from './errors.ts';

/**
 * Minimal binary writer/reader for the snapshot format. Integers are unsigned LEB128 varints
 * computed with arithmetic rather than bit operators, because JS bit operators truncate to 32 bits
 * and timestamps in ms need 41. Every read is bounds-checked so a corrupt buffer ends in a
 * `SnapshotDecodeError`, never a RangeError or a giant allocation.
 */

const ANY_SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True for a string JS holds but UTF-8 cannot carry: one with an unpaired surrogate (e.g. from
 * `"\ud800"` in JSON). The first test is a cheap pre-check; the unicode-aware one is ~10× slower.
 */
export function hasLoneSurrogate(value: string): boolean {
  return ANY_SURROGATE.test(value) && LONE_SURROGATE.test(value);
}

const NUM_NULL = 0;
const NUM_UINT = 1;
const NUM_NEG_INT = 2;
const NUM_FLOAT = 3;

/** Maps a signed delta to an unsigned varint-friendly value (0, -1, 1, -2 … → 0, 1, 2, 3 …). */
export function zigzag(delta: number): number {
  return delta >= 0 ? delta * 2 : -delta * 2 - 1;
}

export function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/** True when `zigzag(delta)` stays a safe integer. */
export function isZigzagSafe(delta: number): boolean {
  return Number.isSafeInteger(delta) && Math.abs(delta) < 2 ** 51;
}

export function isUint(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

export class ByteWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  u32(value: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(value, this.pos);
    this.pos += 4;
  }

  f64(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  uvarint(value: number): void {
    if (!isUint(value)) throw new SnapshotEncodeError(`not an unsigned safe integer: ${value}`);
    this.ensure(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buf[this.pos++] = (rest % 0x80) + 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buf[this.pos++] = rest;
  }

  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /**
   * A length-prefixed string. The low bit of the prefix says UTF-16LE instead of UTF-8: used only
   * for strings with an unpaired surrogate, which UTF-8 would silently turn into U+FFFD.
   */
  str(value: string): void {
    const utf16 = hasLoneSurrogate(value);
    const encoding = utf16 ? 'utf16le' : 'utf8';
    const length = Buffer.byteLength(value, encoding);
    this.uvarint(length * 2 + (utf16 ? 1 : 0));
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos, length, encoding);
  }

  /** Any JS number or null, losslessly (NaN, -0 and fractions included); small integers take 2 bytes. */
  num(value: number | null): void {
    if (value === null) {
      this.u8(NUM_NULL);
    } else if (isUint(value)) {
      this.u8(NUM_UINT);
      this.uvarint(value);
    } else if (Number.isSafeInteger(value)) {
      this.u8(NUM_NEG_INT);
      this.uvarint(-value);
    } else {
      this.u8(NUM_FLOAT);
      this.f64(value);
    }
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

export class ByteReader {
  private pos: number;

  constructor(
    private readonly buf: Buffer,
    offset = 0,
  ) {
    this.pos = offset;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) {
      throw new SnapshotDecodeError(
        `truncated: needed ${n} bytes at offset ${this.pos} of ${this.buf.length}`,
      );
    }
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  u32(): number {
    this.need(4);
    const value = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return value;
  }

  f64(): number {
    this.need(8);
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  uvarint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (!Number.isSafeInteger(value)) throw new SnapshotDecodeError('varint beyond a safe integer');
        return value;
      }
      scale *= 0x80;
    }
    throw new SnapshotDecodeError('varint longer than 8 bytes');
  }

  /** A count of items that each take at least `minBytes`: checked against what is left, so a corrupt count cannot make us allocate gigabytes. */
  count(minBytes: number): number {
    const n = this.uvarint();
    if (n * minBytes > this.remaining)
      throw new SnapshotDecodeError(`count ${n} exceeds the remaining bytes`);
    return n;
  }

  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  str(): string {
    const header = this.uvarint();
    const length = Math.floor(header / 2);
    this.need(length);
    const value = this.buf.toString(header % 2 === 1 ? 'utf16le' : 'utf8', this.pos, this.pos + length);
    this.pos += length;
    return value;
  }

  num(): number | null {
    const tag = this.u8();
    switch (tag) {
      case NUM_NULL:
        return null;
      case NUM_UINT:
        return this.uvarint();
      case NUM_NEG_INT:
        return -this.uvarint();
      case NUM_FLOAT:
        return this.f64();
      default:
        throw new SnapshotDecodeError(`unknown number tag ${tag}`);
    }
  }

  /** A number that must not be null (a timestamp, a count). */
  reqNum(what: string): number {
    const value = this.num();
    if (value === null) throw new SnapshotDecodeError(`${what} is null`);
    return value;
  }

  /** The rest of the buffer, unread. */
  rest(): Buffer {
    return this.bytes(this.remaining);
  }

  end(): void {
    if (this.remaining !== 0) throw new SnapshotDecodeError(`${this.remaining} trailing bytes`);
  }
}
