/**
 * Keys as bytes that sort as IndexedDB sorts keys (numbers < strings < arrays, arrays element by
 * element, a shorter prefix first), so a SQL engine compares them with a plain BLOB comparison
 * (memcmp) and its B-tree walks them in the port's order. Shared by every SQLite driver.
 *
 * - number: 0x10, then the float64's 8 bytes big-endian, sign bit flipped (all bits when
 *   negative), −0 as 0;
 * - string: 0x20, each UTF-16 code unit in 1–3 order-preserving bytes (never 0x00), then 0x00;
 * - array: 0x50, its elements, then 0x00 (below every element's first byte: a prefix sorts first).
 */
import type { Key } from '../../core/storage/port.ts';

const NUMBER = 0x10;
const STRING = 0x20;
const ARRAY = 0x50;
const END = 0x00;

class Writer {
  private bytes = new Uint8Array(64);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  byte(b: number): void {
    this.room(1);
    this.bytes[this.length++] = b;
  }
  number(n: number): void {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, n === 0 ? 0 : n);
    const b = new Uint8Array(view.buffer);
    if (b[0]! & 0x80) for (let i = 0; i < 8; i++) b[i] = ~b[i]! & 0xff;
    else b[0] = b[0]! | 0x80;
    this.room(8);
    this.bytes.set(b, this.length);
    this.length += 8;
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

function write(w: Writer, key: Key): void {
  if (typeof key === 'number') {
    w.byte(NUMBER);
    w.number(key);
  } else if (typeof key === 'string') {
    w.byte(STRING);
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c < 0x7f) w.byte(c + 1);
      else if (c < 0x7f + 0x3f00) {
        const d = c - 0x7f;
        w.byte(0x80 | (d >> 8));
        w.byte(d & 0xff);
      } else {
        w.byte(0xc0);
        w.byte(c >> 8);
        w.byte(c & 0xff);
      }
    }
    w.byte(END);
  } else {
    w.byte(ARRAY);
    for (const element of key) write(w, element);
    w.byte(END);
  }
}

/** The bytes of a key (see the module comment). */
export function encodeKey(key: Key): Uint8Array {
  const w = new Writer();
  write(w, key);
  return w.done();
}

/** The key back from its bytes. */
export function decodeKey(bytes: Uint8Array): Key {
  let at = 0;
  const read = (): Key => {
    const tag = bytes[at++];
    if (tag === NUMBER) {
      // A copy: a driver may hand a view into a larger buffer (Node's Buffer.slice does not copy).
      const b = new Uint8Array(bytes.subarray(at, at + 8));
      at += 8;
      if (b[0]! & 0x80) b[0] = b[0]! & 0x7f;
      else for (let i = 0; i < 8; i++) b[i] = ~b[i]! & 0xff;
      return new DataView(b.buffer).getFloat64(0);
    }
    if (tag === STRING) {
      const units: number[] = [];
      for (;;) {
        const b = bytes[at++]!;
        if (b === END) break;
        if (b < 0x80) units.push(b - 1);
        else if (b < 0xc0) units.push((((b & 0x3f) << 8) | bytes[at++]!) + 0x7f);
        else {
          units.push((bytes[at]! << 8) | bytes[at + 1]!);
          at += 2;
        }
      }
      let out = '';
      for (let i = 0; i < units.length; i += 4096) out += String.fromCharCode(...units.slice(i, i + 4096));
      return out;
    }
    if (tag === ARRAY) {
      const out: Key[] = [];
      while (bytes[at] !== END) out.push(read());
      at++;
      return out;
    }
    throw new Error(`Not a key's bytes (tag ${tag})`);
  };
  return read();
}

/** Byte order: what the database's BLOB comparison does. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
