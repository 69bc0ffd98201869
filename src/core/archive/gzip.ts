/**
 * Streaming gzip for `.ahkai` archives, on a streaming inflater behind the
 * `GzipEngine` port (fflate's, installed by the composition roots: `adapters/gzip-fflate.ts`).
 *
 * Reading: Python's `gzip.open(..., "rt")` reads **multi-member** gzip transparently, so the
 * reader continues across member boundaries (fflate's `Gunzip` does; `DecompressionStream`
 * is not relied on). fflate checks neither the CRC-32 nor the length in a member's trailer and
 * silently accepts a stream that ends inside a header or trailer, so this module verifies every
 * member's trailer itself; that is what tells a truncated archive from a complete one.
 * Failures are `INVALID_ARCHIVE` errors with `details.reason`:
 * - `not-gzip`: the bytes do not start with a gzip member (magic `1f 8b`, method 8);
 * - `truncated`: the stream ends before the last member is complete (inside its header,
 *   deflate data or trailer);
 * - `corrupt`: bad deflate data, a trailer whose CRC/length does not match, or non-gzip bytes
 *   after a member (Python raises `BadGzipFile`; Python also skips zero padding after the last
 *   member, which this reader reports as `corrupt`).
 *
 * Output is streamed, so a member's lines are yielded before its trailer is checked: treat
 * what was read as provisional until the iteration completes (the importer's first pass reads
 * the whole archive before anything is written).
 *
 * Fast path: a source that can be read again (a Blob or bytes) is first inflated by the
 * platform's native `DecompressionStream('gzip')` (zlib, which checks every CRC-32 and length
 * itself), several times faster than fflate. That result is accepted only when the native
 * stream ends cleanly and the last 8 input bytes are the trailer of a member holding all of
 * the output (one complete member, nothing after it). Otherwise (a multi-member file,
 * trailing bytes, damage, no native support) the checked fflate reader runs from the start,
 * skips the bytes already handed out (inflating is deterministic, so they are the same) and
 * goes on from there with its own checks and errors: the output and every failure are those
 * of the checked reader.
 *
 * Memory is bounded: one input piece of at most 512 KiB (small source chunks are gathered, big
 * ones cut), its decompressed output, one partial line, and the last 64 KiB of input (to read
 * member trailers).
 */
import { MemoryError, throwIfAborted } from '../errors.ts';
import { invalidArchive } from './format.ts';
import { gzipEngine, type StreamCodec } from './gzip-engine.ts';

/** What the readers accept: a Web stream, a Blob/File, bytes, or any (async) iterable of chunks. */
export type ByteSource =
  | ReadableStream<Uint8Array>
  | Blob
  | Uint8Array
  | AsyncIterable<Uint8Array>
  | Iterable<Uint8Array>;

export interface GunzipOptions {
  signal?: AbortSignal;
  /** Use the platform's `DecompressionStream` when it can be checked (default true). */
  native?: boolean;
}

export interface LineOptions extends GunzipOptions, ArchiveLimits {
  /** Longest accepted line in bytes (default 64 MiB); longer → `INVALID_ARCHIVE` `too-long`. */
  maxLineBytes?: number;
}

/**
 * Bounds on the work one archive may cause, whatever its compressed size: a gzip member can
 * expand about 1,000-fold, so 2 MB of compressed newlines is 2 billion lines (40 minutes of
 * reading) and a repeated row is millions of rows. Reading stops with `INVALID_ARCHIVE` as soon
 * as a bound is crossed (`details.reason` `too-large` or `too-many-lines`, with the limit).
 */
export interface ArchiveLimits {
  /** Most decompressed bytes read (default {@link DEFAULT_MAX_DECOMPRESSED_BYTES}). */
  maxDecompressedBytes?: number;
  /** Most lines read, the header and blank lines included (default {@link DEFAULT_MAX_LINES}). */
  maxLines?: number;
}

/** 4 GiB: an archive of ~450,000 memories with 384-d vectors as Python writes them (~9 KB a row). */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 4 * 2 ** 30;
/** A header and a million memories (a million-line bomb of one repeated row is read in ~5 s). */
export const DEFAULT_MAX_LINES = 1_000_001;

/** A decompressed chunk and how many compressed bytes had been read when it was produced. */
export interface GunzipChunk {
  data: Uint8Array;
  bytesIn: number;
}

/** One decoded line of the archive. */
export interface ArchiveLine {
  /** 1-based line number; blank lines count. */
  lineNo: number;
  /** The line without its terminator (`\n`, `\r\n` or `\r`: Python's universal newlines). */
  text: string;
  /** The bytes were not valid UTF-8; `text` is then a lossy decoding. */
  invalidUtf8: boolean;
  /** Compressed bytes read so far (progress against the file size). */
  bytesIn: number;
  /** Decompressed bytes up to the end of this line. */
  bytesOut: number;
}

/**
 * Compressed bytes handed to the inflater per step. fflate inflates a whole step at once, so
 * the output held per step is up to ~1,032 times the step: steps start small and grow to the
 * full size only while the data expands like an archive (JSON with vectors: ~3:1), never like a
 * bomb.
 */
const PIECE_BYTES = 512 * 1024;
const SMALL_PIECE_BYTES = 32 * 1024;
const ARCHIVE_LIKE_RATIO = 32;
/** Recent input kept to read a member's trailer when the next member's header is found. */
const HISTORY_BYTES = 64 * 1024;
/** A gzip member is at least a 10-byte header, a 2-byte empty deflate block and 8-byte trailer. */
const MIN_MEMBER_BYTES = 18;
const DEFAULT_MAX_LINE = 64 * 1024 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

// ---------------------------------------------------------------------------------------------
// CRC-32 (IEEE), as in the gzip trailer

/** Slicing-by-8 tables: table k maps a byte to its CRC contribution k bytes further on. */
const CRC_TABLES = (() => {
  const tables = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) {
      const prev = tables[(k - 1) * 256 + n] as number;
      tables[k * 256 + n] = (prev >>> 8) ^ (tables[prev & 0xff] as number);
    }
  }
  return tables;
})();

/** CRC-32 of `data`, continuing from `crc` (the value of an earlier call, 0 to start). */
export function crc32(data: Uint8Array, crc = 0): number {
  const t = CRC_TABLES;
  let c = ~crc;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  for (; i < end8; i += 8) {
    c ^= (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24);
    c =
      (t[1792 + (c & 0xff)] as number) ^
      (t[1536 + ((c >>> 8) & 0xff)] as number) ^
      (t[1280 + ((c >>> 16) & 0xff)] as number) ^
      (t[1024 + (c >>> 24)] as number) ^
      (t[768 + (data[i + 4] as number)] as number) ^
      (t[512 + (data[i + 5] as number)] as number) ^
      (t[256 + (data[i + 6] as number)] as number) ^
      (t[data[i + 7] as number] as number);
  }
  for (; i < data.length; i++) c = (t[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Sources

async function* chunksOf(source: ByteSource, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    yield* chunksOf(source.stream() as ReadableStream<Uint8Array>, signal);
    return;
  }
  if (typeof ReadableStream !== 'undefined' && source instanceof ReadableStream) {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    let finished = false;
    try {
      for (;;) {
        throwIfAborted(signal);
        const { done, value } = await reader.read();
        if (done) {
          finished = true;
          return;
        }
        yield value;
      }
    } finally {
      if (!finished) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  for await (const chunk of source as AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    throwIfAborted(signal);
    yield chunk;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

interface FlateErrorLike {
  code?: number;
  message?: string;
}

/**
 * fflate's streaming `Gunzip` (which follows concatenated members) plus what fflate leaves
 * out: a magic check that fails fast, and a CRC-32/ISIZE check of every member's trailer.
 */
class CheckedGunzip {
  private readonly inflater: StreamCodec;
  private output: Uint8Array[] = [];
  private bytesIn = 0;
  private bytesOut = 0;
  /** The last HISTORY_BYTES of input before the piece being inflated, from offset `recentStart`. */
  private recent: Uint8Array = new Uint8Array(0);
  private recentStart = 0;
  /** The piece being inflated, from offset `currentStart`. */
  private current: Uint8Array = new Uint8Array(0);
  private currentStart = 0;
  private head = 0;
  private memberIndex = 0;
  private memberStart = 0;
  private memberCrc = 0;
  private memberSize = 0;

  constructor() {
    this.inflater = gzipEngine().inflater(
      (data) => {
        if (data.length === 0) return;
        this.memberCrc = crc32(data, this.memberCrc);
        this.memberSize = (this.memberSize + data.length) % 0x1_0000_0000;
        this.bytesOut += data.length;
        this.output.push(data);
      },
      (offset) => this.nextMember(offset),
    );
  }

  get consumed(): number {
    return this.bytesIn;
  }

  /** The next step's size: small until the output has shown it does not expand like a bomb. */
  get pieceSize(): number {
    return this.bytesIn >= PIECE_BYTES && this.bytesOut < ARCHIVE_LIKE_RATIO * this.bytesIn ? PIECE_BYTES : SMALL_PIECE_BYTES;
  }

  push(piece: Uint8Array): Uint8Array[] {
    if (piece.length === 0) return [];
    this.checkMagic(piece);
    this.current = piece;
    this.currentStart = this.bytesIn;
    this.bytesIn += piece.length;
    this.run(() => this.inflater.push(piece, false));
    this.remember(piece);
    return this.drain();
  }

  /** Ends the stream; returns the last output and verifies the last member's trailer. */
  finish(): Uint8Array[] {
    if (this.bytesIn === 0) return [];
    if (this.head < GZIP_MAGIC.length) {
      throw invalidArchive('truncated', 'truncated archive (the gzip header is incomplete)', this.where());
    }
    this.current = new Uint8Array(0);
    this.currentStart = this.bytesIn;
    this.run(() => this.inflater.push(new Uint8Array(0), true));
    if (this.bytesIn - this.memberStart < MIN_MEMBER_BYTES) {
      throw invalidArchive('truncated', 'truncated archive (the stream ended inside a gzip member)', this.where());
    }
    const trailer = this.trailerEndingAt(this.bytesIn);
    if (readUint32(trailer, 4) !== this.memberSize) {
      // Whatever the last 8 bytes are, they are not this member's trailer: the stream stopped
      // inside the member (its deflate data, or before its trailer was complete).
      throw invalidArchive('truncated', 'truncated archive (the stream ended before the end of a gzip member)', this.where());
    }
    if (readUint32(trailer, 0) !== this.memberCrc) {
      throw invalidArchive('corrupt', 'corrupt archive (CRC-32 check failed)', this.where());
    }
    return this.drain();
  }

  private drain(): Uint8Array[] {
    const out = this.output;
    this.output = [];
    return out;
  }

  private where(): Record<string, unknown> {
    return { member: this.memberIndex, bytesIn: this.bytesIn, bytesOut: this.bytesOut };
  }

  private checkMagic(piece: Uint8Array): void {
    for (let i = 0; i < piece.length && this.head < GZIP_MAGIC.length; i++) {
      if (piece[i] !== GZIP_MAGIC[this.head]) {
        throw invalidArchive('not-gzip', 'not a gzipped ai-houkai export (no gzip header)', { bytesIn: this.bytesIn + i });
      }
      this.head += 1;
    }
  }

  private remember(piece: Uint8Array): void {
    if (piece.length >= HISTORY_BYTES) {
      this.recent = piece.slice(piece.length - HISTORY_BYTES);
    } else {
      const keep = Math.min(this.recent.length, HISTORY_BYTES - piece.length);
      const next = new Uint8Array(keep + piece.length);
      next.set(this.recent.subarray(this.recent.length - keep));
      next.set(piece, keep);
      this.recent = next;
    }
    this.recentStart = this.bytesIn - this.recent.length;
  }

  private run(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      const flate = error as FlateErrorLike;
      const message = flate.message ?? String(error);
      if (flate.code === 0) {
        throw invalidArchive('truncated', `truncated archive (${message})`, this.where());
      }
      if (flate.code === 6 && this.memberIndex === 0 && this.bytesOut === 0) {
        throw invalidArchive('not-gzip', `not a gzipped ai-houkai export (${message})`, this.where());
      }
      throw invalidArchive('corrupt', `corrupt archive (${message})`, this.where());
    }
  }

  /** fflate found the next member's header at `offset`: the previous member ends there. */
  private nextMember(offset: number): void {
    if (offset - this.memberStart < MIN_MEMBER_BYTES) {
      throw invalidArchive('corrupt', 'corrupt archive (a gzip member is too short)', this.where());
    }
    const trailer = this.trailerEndingAt(offset);
    if (readUint32(trailer, 0) !== this.memberCrc || readUint32(trailer, 4) !== this.memberSize) {
      throw invalidArchive('corrupt', 'corrupt archive (CRC-32 check failed)', this.where());
    }
    this.memberIndex += 1;
    this.memberStart = offset;
    this.memberCrc = 0;
    this.memberSize = 0;
  }

  /** The 8 input bytes before absolute offset `end`. */
  private trailerEndingAt(end: number): Uint8Array {
    const out = new Uint8Array(8);
    for (let k = 0; k < 8; k++) {
      const at = end - 8 + k;
      if (at >= this.currentStart && at < this.currentStart + this.current.length) {
        out[k] = this.current[at - this.currentStart] as number;
      } else if (at >= this.recentStart && at < this.recentStart + this.recent.length) {
        out[k] = this.recent[at - this.recentStart] as number;
      } else {
        throw invalidArchive('corrupt', 'corrupt archive (a gzip member header is too long to follow)', this.where());
      }
    }
    return out;
  }
}

function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;
}

/**
 * Compressed bytes handed to the native inflater per chunk. A DecompressionStream inflates a
 * whole input chunk and queues all of its output at once (Chromium ignores backpressure inside
 * one chunk), so chunks start small and grow only while the data expands like an archive.
 */
const NATIVE_PIECE_BYTES = 1024 * 1024;

function hasNativeGunzip(): boolean {
  return typeof DecompressionStream === 'function' && typeof ReadableStream === 'function';
}

/** The source as a stream of pieces of at most `pieceSize()` bytes, counting what was read. */
function countedStream(source: Blob | Uint8Array, counter: { read: number }, pieceSize: () => number): ReadableStream<Uint8Array> {
  let at = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let pending: Uint8Array | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let piece: Uint8Array | undefined;
      if (source instanceof Uint8Array) {
        if (at < source.length) piece = source.subarray(at, (at = Math.min(source.length, at + pieceSize())));
      } else {
        if (!pending || pending.length === 0) {
          reader ??= (source.stream() as ReadableStream<Uint8Array>).getReader();
          const next = await reader.read();
          pending = next.done ? undefined : next.value;
        }
        if (pending) {
          piece = pending.subarray(0, pieceSize());
          pending = pending.subarray(piece.length);
        }
      }
      if (!piece) {
        controller.close();
        return;
      }
      counter.read += piece.length;
      controller.enqueue(piece);
    },
    async cancel() {
      await reader?.cancel().catch(() => undefined);
    },
  });
}

/** The last 8 bytes of the source (a gzip member's trailer: CRC-32 and length mod 2^32). */
async function trailerOf(source: Blob | Uint8Array): Promise<Uint8Array | null> {
  const size = source instanceof Uint8Array ? source.length : source.size;
  if (size < MIN_MEMBER_BYTES) return null;
  if (source instanceof Uint8Array) return source.subarray(size - 8);
  return new Uint8Array(await source.slice(size - 8).arrayBuffer());
}

/**
 * Native inflation; reports how many bytes it yielded and whether the result is complete by
 * the rule above (`done`). Any native failure just ends it with `done: false`.
 */
async function* nativeGunzip(
  source: Blob | Uint8Array,
  state: { yielded: number; done: boolean },
  signal?: AbortSignal,
): AsyncGenerator<GunzipChunk> {
  const counter = { read: 0 };
  const pieceSize = (): number =>
    counter.read >= PIECE_BYTES && state.yielded < ARCHIVE_LIKE_RATIO * counter.read ? NATIVE_PIECE_BYTES : SMALL_PIECE_BYTES;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = countedStream(source, counter, pieceSize)
      .pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
      .getReader();
  } catch {
    return;
  }
  let size = 0;
  let finished = false;
  try {
    for (;;) {
      throwIfAborted(signal);
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        return; // damage, junk after a member, a second member on some platforms: the checked reader decides
      }
      if (next.done) break;
      if (next.value.length === 0) continue;
      size = (size + next.value.length) % 0x1_0000_0000;
      state.yielded += next.value.length;
      yield { data: next.value, bytesIn: counter.read };
    }
    finished = true;
    const trailer = await trailerOf(source);
    state.done = trailer !== null && readUint32(trailer, 4) === size;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Decompresses a (multi-member) gzip stream chunk by chunk. Throws `INVALID_ARCHIVE`
 * (`not-gzip`, `truncated`, `corrupt`) after yielding whatever came before the damage, and
 * `ABORTED` when `signal` fires. An empty input yields nothing.
 */
export async function* gunzip(source: ByteSource, options: GunzipOptions = {}): AsyncGenerator<GunzipChunk> {
  const rereadable = source instanceof Uint8Array || (typeof Blob !== 'undefined' && source instanceof Blob);
  if (options.native === false || !rereadable || !hasNativeGunzip()) {
    yield* checkedGunzip(source, options);
    return;
  }
  const state = { yielded: 0, done: false };
  yield* nativeGunzip(source as Blob | Uint8Array, state, options.signal);
  if (state.done) return;
  // Not provably complete: the checked reader takes over where the native one stopped.
  let skip = state.yielded;
  for await (const chunk of checkedGunzip(source, options)) {
    if (skip >= chunk.data.length) {
      skip -= chunk.data.length;
      continue;
    }
    yield skip > 0 ? { data: chunk.data.subarray(skip), bytesIn: chunk.bytesIn } : chunk;
    skip = 0;
  }
}

/** fflate with the checks described above. */
async function* checkedGunzip(source: ByteSource, options: GunzipOptions): AsyncGenerator<GunzipChunk> {
  const inflater = new CheckedGunzip();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const take = (): Uint8Array => {
    const piece = concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return piece;
  };
  for await (const chunk of chunksOf(source, options.signal)) {
    if (chunk.length === 0) continue;
    // Small chunks are gathered (fflate's cost per push is high), big ones cut into pieces.
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes < inflater.pieceSize) continue;
    const whole = take();
    for (let at = 0; at < whole.length; ) {
      const end = Math.min(whole.length, at + inflater.pieceSize);
      const out = inflater.push(whole.subarray(at, end));
      at = end;
      for (const data of out) yield { data, bytesIn: inflater.consumed };
    }
  }
  throwIfAborted(options.signal);
  if (pendingBytes > 0) {
    const rest = take();
    for (let at = 0; at < rest.length; ) {
      const end = Math.min(rest.length, at + inflater.pieceSize);
      const out = inflater.push(rest.subarray(at, end));
      at = end;
      for (const data of out) yield { data, bytesIn: inflater.consumed };
    }
  }
  for (const data of inflater.finish()) yield { data, bytesIn: inflater.consumed };
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossyDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Decompresses and splits the archive into lines, like iterating Python's text-mode gzip file:
 * UTF-8, universal newlines (`\n`, `\r\n`, `\r`), a final line without a terminator still
 * counts. A BOM is kept (Python's `utf-8` codec keeps it, so such a header is not JSON).
 * Empty lines after the first are counted in `lineNo` but not yielded (every reader skips them).
 * Invalid UTF-8 does not stop the stream: that line is flagged `invalidUtf8`. Holds at most
 * one decompressed chunk and one partial line.
 */
export async function* gunzipLines(source: ByteSource, options: LineOptions = {}): AsyncGenerator<ArchiveLine> {
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE;
  const maxBytes = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  let lineNo = 0;
  let outBase = 0; // decompressed bytes before the current chunk
  let afterCR = false; // the previous chunk ended with `\r`: skip a leading `\n`
  let lastBytesIn = 0;

  const makeLine = (bytes: Uint8Array, bytesIn: number, bytesOut: number): ArchiveLine => {
    if (lineNo >= maxLines) throw tooManyLines(maxLines, bytesIn, bytesOut);
    lineNo += 1;
    let text: string;
    let invalidUtf8 = false;
    try {
      text = strictDecoder.decode(bytes);
    } catch {
      text = lossyDecoder.decode(bytes);
      invalidUtf8 = true;
    }
    return { lineNo, text, invalidUtf8, bytesIn, bytesOut };
  };

  for await (const { data, bytesIn } of gunzip(source, options)) {
    lastBytesIn = bytesIn;
    if (outBase + data.length > maxBytes) throw tooLarge(maxBytes, bytesIn);
    let pos = 0;
    if (afterCR) {
      afterCR = false;
      if (data[0] === 0x0a) pos = 1;
    }
    let start = pos;
    let cr = data.indexOf(0x0d, pos);
    let lf = data.indexOf(0x0a, pos);
    for (;;) {
      if (cr !== -1 && cr < pos) cr = data.indexOf(0x0d, pos);
      if (lf !== -1 && lf < pos) lf = data.indexOf(0x0a, pos);
      if (cr === -1 && lf === -1) break;
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      const piece = data.subarray(start, end);
      if (partBytes + piece.length > maxLine) throw tooLong(lineNo + 1, maxLine);
      let bytes = piece;
      if (partBytes > 0) {
        parts.push(piece);
        bytes = concat(parts, partBytes + piece.length);
        parts = [];
        partBytes = 0;
      }
      pos = end + 1;
      if (data[end] === 0x0d) {
        if (pos === data.length) afterCR = true;
        else if (data[pos] === 0x0a) pos += 1;
      }
      start = pos;
      if (bytes.length === 0 && lineNo > 0) {
        // An empty line after the header is counted, not handed out: a stream of newlines (a
        // bomb) then costs a counter step per line instead of a line object and a parse.
        if (lineNo >= maxLines) throw tooManyLines(maxLines, bytesIn, outBase + pos);
        lineNo += 1;
        continue;
      }
      yield makeLine(bytes, bytesIn, outBase + pos);
    }
    if (start < data.length) {
      const rest = data.subarray(start);
      if (partBytes + rest.length > maxLine) throw tooLong(lineNo + 1, maxLine);
      parts.push(rest);
      partBytes += rest.length;
    }
    outBase += data.length;
  }
  if (partBytes > 0) yield makeLine(concat(parts, partBytes), lastBytesIn, outBase);
}

function tooLong(lineNo: number, limit: number): MemoryError {
  return invalidArchive('too-long', `line ${lineNo} is longer than ${limit} bytes`, { lineNo, limit });
}

function tooLarge(limit: number, bytesIn: number): MemoryError {
  return invalidArchive(
    'too-large',
    `the archive decompresses to more than ${limit} bytes (after ${bytesIn} compressed bytes): a decompression bomb, or pass a larger maxDecompressedBytes`,
    { limit, bytesIn, option: 'maxDecompressedBytes' },
  );
}

function tooManyLines(limit: number, bytesIn: number, bytesOut: number): MemoryError {
  return invalidArchive(
    'too-many-lines',
    `the archive has more than ${limit} lines (after ${bytesIn} compressed bytes): a decompression bomb, or pass a larger maxLines`,
    { limit, bytesIn, bytesOut, option: 'maxLines' },
  );
}

// ---------------------------------------------------------------------------------------------
// Writing

export type GzipLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

export interface GzipWriterOptions {
  /** Compression level, default 6 (Go's writer; Python uses 9). */
  level?: GzipLevel;
}

/** An incremental single-member gzip writer (no file name, mtime 0, like Go's). */
export interface GzipWriter {
  /** Compresses `data` (strings as UTF-8); returns whatever compressed bytes are ready. */
  write(data: Uint8Array | string): Uint8Array[];
  /** Finishes the member (trailer included); returns the remaining bytes. */
  end(): Uint8Array[];
}

const encoder = new TextEncoder();

export function createGzipWriter(options: GzipWriterOptions = {}): GzipWriter {
  let out: Uint8Array[] = [];
  let ended = false;
  const deflater = gzipEngine().deflater(options.level ?? 6, (data) => {
    if (data.length > 0) out.push(data);
  });
  const take = (): Uint8Array[] => {
    const chunks = out;
    out = [];
    return chunks;
  };
  return {
    write(data) {
      if (ended) throw new Error('gzip writer already ended');
      const bytes = typeof data === 'string' ? encoder.encode(data) : data;
      if (bytes.length > 0) deflater.push(bytes, false);
      return take();
    },
    end() {
      if (ended) return [];
      ended = true;
      deflater.push(new Uint8Array(0), true);
      return take();
    },
  };
}

/** Compresses an (async) iterable of chunks into a single-member gzip `ReadableStream`. */
export function gzipStream(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options: GzipWriterOptions = {},
): ReadableStream<Uint8Array> {
  const writer = createGzipWriter(options);
  let iterator: AsyncIterator<Uint8Array | string> | Iterator<Uint8Array | string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      iterator ??= Symbol.asyncIterator in source
        ? (source as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]()
        : (source as Iterable<Uint8Array | string>)[Symbol.iterator]();
      for (;;) {
        const next = await iterator.next();
        const chunks = next.done ? writer.end() : writer.write(next.value);
        for (const chunk of chunks) controller.enqueue(chunk);
        if (next.done) {
          controller.close();
          return;
        }
        if (chunks.length > 0) return;
      }
    },
    async cancel() {
      await iterator?.return?.();
    },
  });
}

/** Collects a byte stream into one array (tests, small archives). */
export async function collectBytes(source: ByteSource): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunksOf(source)) {
    parts.push(chunk);
    total += chunk.length;
  }
  return concat(parts, total);
}
