/**
 * Rows to bytes and back where there is no `node:v8` serialiser: the SQLite drivers of a browser
 * (driver-sqlite-wasm.ts). It keeps what IndexedDB's structured clone keeps of the values a store
 * writes — numbers (NaN, ±0 and ±Infinity included), strings, booleans, null, undefined, arrays,
 * plain objects, typed arrays, ArrayBuffers, Dates, Maps, Sets, bigints — and refuses what a
 * structured clone refuses (functions, symbols) with a DataCloneError, before anything is written.
 *
 * Layout: one tag byte a value; lengths and counts as unsigned LEB128; strings in UTF-8; numbers
 * that are small integers in a zig-zag varint, others as a little-endian float64; a typed array's
 * kind, byte length and bytes. Pure: no DOM, no Node.
 */

const enum Tag {
  Undefined = 0,
  Null = 1,
  False = 2,
  True = 3,
  Int = 4,
  Float = 5,
  String = 6,
  Array = 7,
  Object = 8,
  Typed = 9,
  Buffer = 10,
  Date = 11,
  BigInt = 12,
  Map = 13,
  Set = 14,
  /** An object whose keys are field codes (FIELDS) or, code 0, a string: written since 2026-11-30. */
  Fields = 15,
}

/**
 * The field names a store writes in every row — a memory row, its vector row, its journal entry —
 * each written as its one-byte code instead of its name (about 150 bytes a memory). The code is
 * the position + 1 and is part of the format: append only, never reorder or remove. Any other key
 * is written as a string (code 0).
 */
export const FIELDS: readonly string[] = Object.freeze([
  // memory (core/types.ts Memory)
  'id', 'text', 'type', 'tags', 'importance', 'createdAt', 'lastAccessed', 'accessCount', 'source', 'links',
  'supersededBy', 'supersededAt', 'polarity', 'expiresAt', 'pinned', 'trust', 'contentHash', 'validFrom', 'validUntil', 'surfacesWhen',
  // its row's derived fields (core/storage/rows.ts), a link, a vector row
  'label', 'terms', 'termCounts', 'termLength', 'linkTargets', 'pinMoved', 'superseded', 'positive', 'to', 'rel', 'vector', 'gen',
  // a journal entry (core/ports.ts JournalEntry)
  'seq', 'ts', 'op', 'actor', 'before', 'after', 'created', 'meta', 'group',
]);
const FIELD_CODES = new Map(FIELDS.map((name, i) => [name, i + 1]));

/** Typed array kinds by their code (the order is the format: append only). */
const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array] as const;
type TypedArray = InstanceType<(typeof TYPED)[number]>;

/** Nesting deeper than this is refused (a cycle ends here too). */
const MAX_DEPTH = 512;

const cloneError = (message: string): Error => Object.assign(new Error(message), { name: 'DataCloneError' });
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

class Writer {
  buf = new Uint8Array(256);
  view = new DataView(this.buf.buffer);
  at = 0;

  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }
  varint(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
  }
  float(x: number): void {
    this.room(8);
    this.view.setFloat64(this.at, x, true);
    this.at += 8;
  }
  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }
  string(s: string): void {
    // UTF-8 takes at most 3 bytes a UTF-16 unit; the text is written 5 bytes on (a length's most),
    // then moved back behind its length.
    this.room(8 + s.length * 3);
    const { written } = utf8.encodeInto(s, this.buf.subarray(this.at + 5));
    const textAt = this.at + 5;
    this.varint(written);
    if (this.at !== textAt) this.buf.copyWithin(this.at, textAt, textAt + written);
    this.at += written;
  }
}

/** Small integers (|n| < 2^31) as a zig-zag varint; every other number as float64 (−0 included). */
const isSmallInt = (n: number): boolean => Number.isInteger(n) && Math.abs(n) < 2 ** 31 && !Object.is(n, -0);

function write(w: Writer, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw cloneError('A value nests too deep to store (or refers to itself)');
  switch (typeof value) {
    case 'undefined':
      return w.byte(Tag.Undefined);
    case 'boolean':
      return w.byte(value ? Tag.True : Tag.False);
    case 'number':
      if (isSmallInt(value)) {
        w.byte(Tag.Int);
        return w.varint(value >= 0 ? value * 2 : -value * 2 - 1);
      }
      w.byte(Tag.Float);
      return w.float(value);
    case 'string':
      w.byte(Tag.String);
      return w.string(value);
    case 'bigint':
      w.byte(Tag.BigInt);
      return w.string(value.toString());
    case 'function':
    case 'symbol':
      throw cloneError(`A ${typeof value} cannot be stored`);
  }
  if (value === null) return w.byte(Tag.Null);
  if (ArrayBuffer.isView(value)) {
    const kind = TYPED.findIndex((T) => value instanceof T);
    if (kind < 0) throw cloneError('A DataView cannot be stored');
    w.byte(Tag.Typed);
    w.byte(kind);
    return w.bytes(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  }
  if (value instanceof ArrayBuffer) {
    w.byte(Tag.Buffer);
    return w.bytes(new Uint8Array(value));
  }
  if (value instanceof Date) {
    w.byte(Tag.Date);
    return w.float(value.getTime());
  }
  if (Array.isArray(value)) {
    w.byte(Tag.Array);
    w.varint(value.length);
    for (let i = 0; i < value.length; i++) write(w, value[i], depth + 1);
    return;
  }
  if (value instanceof Map) {
    w.byte(Tag.Map);
    w.varint(value.size);
    for (const [k, v] of value) {
      write(w, k, depth + 1);
      write(w, v, depth + 1);
    }
    return;
  }
  if (value instanceof Set) {
    w.byte(Tag.Set);
    w.varint(value.size);
    for (const v of value) write(w, v, depth + 1);
    return;
  }
  // Any other object: its own enumerable string-keyed properties, as a structured clone keeps them.
  const keys = Object.keys(value as object);
  w.byte(Tag.Fields);
  w.varint(keys.length);
  for (const key of keys) {
    const code = FIELD_CODES.get(key);
    if (code === undefined) {
      w.varint(0);
      w.string(key);
    } else w.varint(code);
    write(w, (value as Record<string, unknown>)[key], depth + 1);
  }
}

/** A value as bytes. @throws DataCloneError for what a structured clone refuses. */
export function encodeValue(value: unknown): Uint8Array {
  const w = new Writer();
  write(w, value, 0);
  return w.buf.slice(0, w.at);
}

class Reader {
  at = 0;
  readonly view: DataView;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  need(n: number): void {
    if (this.at + n > this.buf.length) throw new RangeError('A stored value ends early');
  }
  byte(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }
  varint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
    throw new RangeError('A stored length is malformed');
  }
  float(): number {
    this.need(8);
    const x = this.view.getFloat64(this.at, true);
    this.at += 8;
    return x;
  }
  bytes(): Uint8Array {
    const n = this.varint();
    this.need(n);
    // A copy with its own buffer: aligned for any typed array, and not a view of the row's bytes.
    const out = this.buf.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }
  string(): string {
    const n = this.varint();
    this.need(n);
    const s = fromUtf8.decode(this.buf.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }
}

function read(r: Reader): unknown {
  const tag = r.byte();
  switch (tag) {
    case Tag.Undefined:
      return undefined;
    case Tag.Null:
      return null;
    case Tag.False:
      return false;
    case Tag.True:
      return true;
    case Tag.Int: {
      const z = r.varint();
      return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    }
    case Tag.Float:
      return r.float();
    case Tag.String:
      return r.string();
    case Tag.BigInt:
      return BigInt(r.string());
    case Tag.Array: {
      const n = r.varint();
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = read(r);
      return out;
    }
    case Tag.Object:
    case Tag.Fields: {
      const coded = tag === Tag.Fields;
      const n = r.varint();
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const code = coded ? r.varint() : 0;
        const key = code === 0 ? r.string() : FIELDS[code - 1];
        if (key === undefined) throw new RangeError('A stored field code is unknown');
        // Own data properties, even for "__proto__", as a structured clone makes them.
        Object.defineProperty(out, key, { value: read(r), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case Tag.Typed: {
      const T = TYPED[r.byte()];
      if (!T) throw new RangeError('A stored typed array has an unknown kind');
      const b = r.bytes();
      return new T(b.buffer as ArrayBuffer, 0, b.byteLength / T.BYTES_PER_ELEMENT) as TypedArray;
    }
    case Tag.Buffer:
      return r.bytes().buffer;
    case Tag.Date:
      return new Date(r.float());
    case Tag.Map: {
      const n = r.varint();
      const out = new Map<unknown, unknown>();
      for (let i = 0; i < n; i++) out.set(read(r), read(r));
      return out;
    }
    case Tag.Set: {
      const n = r.varint();
      const out = new Set<unknown>();
      for (let i = 0; i < n; i++) out.add(read(r));
      return out;
    }
    default:
      throw new RangeError(`A stored value has an unknown tag ${tag}`);
  }
}

/** Bytes written by `encodeValue` as the value. @throws RangeError for bytes it did not write. */
export function decodeValue(bytes: Uint8Array): unknown {
  const r = new Reader(bytes);
  const value = read(r);
  if (r.at !== bytes.length) throw new RangeError('A stored value has bytes after its end');
  return value;
}
