/**
 * One file out of a zip (a ChatGPT data export is a zip holding `conversations.json`): the
 * central directory read from the end of the file, the entry's local header skipped, its data
 * returned stored or as one gzip member (the deflate data between a gzip header and a trailer
 * built from the zip's own CRC-32 and size), which the archive reader's `gunzip` inflates and
 * checks. Pure: no I/O, no inflater of its own. Zip64 and encrypted entries are refused by name.
 */
import { MemoryError } from '../errors.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** A file starts like a zip (a local file header, or an empty archive's end record). */
export const looksLikeZip = (bytes: Uint8Array): boolean => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5);

export interface ZipEntry {
  name: string;
  /** `stored`: `data` is the file; `gzip`: `data` is one gzip member holding it. */
  kind: 'stored' | 'gzip';
  data: Uint8Array;
  size: number;
}

const bad = (message: string, details: Record<string, unknown> = {}): MemoryError => new MemoryError('INVALID_CHATS', `Not a readable zip: ${message}`, { format: 'zip', ...details });

/** The entries' names, and the first entry `wanted` accepts (null when none does). */
export function readZipEntry(bytes: Uint8Array, wanted: (name: string) => boolean): { names: string[]; entry: ZipEntry | null } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end record is in the last 22 bytes, or before a comment of up to 65,535 bytes.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) throw bad('no end-of-central-directory record (a truncated download?)');
  const count = view.getUint16(end + 10, true);
  const dirOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || dirOffset === 0xffffffff) throw bad('a zip64 archive is not supported; unzip it and import conversations.json');
  const decoder = new TextDecoder();
  const names: string[] = [];
  let found: ZipEntry | null = null;
  let at = dirOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) throw bad(`central directory entry ${i + 1} is damaged`, { entry: i + 1 });
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const packed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    names.push(name);
    at += 46 + nameLength + extraLength + commentLength;
    if (found || !wanted(name)) continue;
    if (flags & 1) throw bad(`${name} is encrypted`, { entry: name });
    if (packed === 0xffffffff || size === 0xffffffff) throw bad(`${name} needs zip64, which is not supported; unzip it and import the file itself`, { entry: name });
    if (local + 30 > bytes.length || view.getUint32(local, true) !== LOCAL) throw bad(`the local header of ${name} is damaged`, { entry: name });
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + packed > bytes.length) throw bad(`${name} is cut short (a truncated download?)`, { entry: name });
    const data = bytes.subarray(start, start + packed);
    if (method === 0) found = { name, kind: 'stored', data, size };
    else if (method === 8) found = { name, kind: 'gzip', data: gzipMember(data, crc, size), size };
    else throw bad(`${name} is compressed with method ${method}; only stored and deflate entries are read`, { entry: name, method });
  }
  return { names, entry: found };
}

/** Raw deflate data as one gzip member: a 10-byte header, the data, CRC-32 and size (little-endian). */
function gzipMember(deflate: Uint8Array, crc: number, size: number): Uint8Array {
  const out = new Uint8Array(10 + deflate.length + 8);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  out.set(deflate, 10);
  const trailer = new DataView(out.buffer, 10 + deflate.length, 8);
  trailer.setUint32(0, crc, true);
  trailer.setUint32(4, size >>> 0, true);
  return out;
}
