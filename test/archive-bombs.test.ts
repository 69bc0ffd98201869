/**
 * Issue #16 item 10: decompression bombs. The bombs are generated here (never committed): a
 * gzip member of 1 MiB of newlines (or of one repeated row) compresses ~1,000-fold, and gzip
 * readers (Python's, and ours) read concatenated members as one stream, so 2 MB of repeated
 * members is 2 GB of output. Before the bounds, the newline bomb kept the importer busy ~40
 * minutes and the row bomb grew memory ~25 bytes a line; now reading stops at the line or byte
 * bound with INVALID_ARCHIVE and the store is unchanged.
 */
import { gzipSync as nodeGzip } from 'node:zlib';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import { DEFAULT_MAX_DECOMPRESSED_BYTES, DEFAULT_MAX_LINES, gunzip, gunzipLines } from '../src/core/archive/gzip.ts';
import { openTestStore } from './helpers/store.ts';

const encoder = new TextEncoder();
const HEADER = '{"format":"ai-houkai/export","version":1,"source":{"embedding_dim":0}}\n';

/** `count` copies of one gzip member of `unit`, after a header member. */
function bomb(unit: Uint8Array, count: number): Uint8Array {
  const header = gzipSync(encoder.encode(HEADER));
  const member = gzipSync(unit, { level: 9 });
  const out = new Uint8Array(header.length + member.length * count);
  out.set(header);
  for (let i = 0; i < count; i++) out.set(member, header.length + i * member.length);
  return out;
}

const MIB = 1 << 20;
const newlines = (): Uint8Array => new Uint8Array(MIB).fill(0x0a);
const repeatedRows = (): Uint8Array => {
  const row = '{"id":"same","text":"the same row, again"}\n';
  return encoder.encode(row.repeat(Math.floor(MIB / row.length)));
};

async function rejection(call: () => Promise<unknown>): Promise<MemoryError> {
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  return error as MemoryError;
}

describe('decompression bombs are stopped by the reader bounds', () => {
  it('2 MB of gzipped newlines (2 GB, 2 billion lines) is rejected at the default line bound; the store is unchanged', async () => {
    const file = bomb(newlines(), 2000);
    expect(file.length).toBeLessThan(2.2e6);
    const store = await openTestStore();
    await store.remember('an existing memory');
    const error = await rejection(() => store.importArchive(file));
    expect(error.code).toBe('INVALID_ARCHIVE');
    expect(error.details).toMatchObject({ reason: 'too-many-lines', limit: DEFAULT_MAX_LINES, option: 'maxLines' });
    expect(error.message).toContain('maxLines');
    expect(await store.count()).toBe(1);
    expect((await rejection(() => store.archiveInfo(file))).details).toMatchObject({ reason: 'too-many-lines' });
    await store.close();
  });

  it('a repeated-row bomb is rejected at the default line bound, with nothing written and nothing kept', async () => {
    const file = bomb(repeatedRows(), 600); // ~1.9 MB compressed, ~600 MB and 15 million rows decompressed
    const store = await openTestStore();
    const error = await rejection(() => store.importArchive(file));
    expect(error.details).toMatchObject({ reason: 'too-many-lines', limit: DEFAULT_MAX_LINES });
    // 'rename' gives every repeat a fresh id (state per line): the same bound stops it.
    const renamed = await rejection(() => store.importArchive(file, { onConflict: 'rename', maxLines: 100_000 }));
    expect(renamed.details).toMatchObject({ reason: 'too-many-lines', limit: 100_000 });
    expect(await store.count()).toBe(0);
    await store.close();
  });

  it('the bounds are configurable per call: lines and decompressed bytes', async () => {
    const store = await openTestStore();
    const rows = bomb(repeatedRows(), 40);
    const byLines = await rejection(() => store.importArchive(rows, { maxLines: 1000 }));
    expect(byLines.details).toMatchObject({ reason: 'too-many-lines', limit: 1000 });
    const byBytes = await rejection(() => store.importArchive(rows, { maxDecompressedBytes: 4 * MIB }));
    expect(byBytes.details).toMatchObject({ reason: 'too-large', limit: 4 * MIB, option: 'maxDecompressedBytes' });
    expect((await rejection(() => store.archiveInfo(rows, { maxDecompressedBytes: MIB }))).details).toMatchObject({ reason: 'too-large' });
    // Within bounds the same rows import (one memory: the id repeats).
    expect(await store.importArchive(bomb(repeatedRows(), 1))).toMatchObject({ imported: 1 });
    for (const bad of [0, -1, 1.5, Number.NaN, '10', 2n]) {
      expect((await rejection(() => store.importArchive(rows, { maxLines: bad as number }))).code).toBe('INVALID_ARGUMENT');
      expect((await rejection(() => store.archiveInfo(rows, { maxDecompressedBytes: bad as number }))).code).toBe('INVALID_ARGUMENT');
    }
    expect(await store.count()).toBe(1);
    await store.close();
  });

  it('a million bad lines keep 1,000 messages and count the rest', async () => {
    const store = await openTestStore();
    const junk = encoder.encode('not json\n'.repeat(5000));
    const result = await store.importArchive(bomb(junk, 1));
    expect(result.errors.length).toBe(1000);
    expect(result.errors[0]).toMatchObject({ where: 'line:2' });
    expect(result.errorsOmitted).toBe(4000);
    expect(await store.count()).toBe(0);
    await store.close();
  });

  it('the defaults are the documented ones', () => {
    expect(DEFAULT_MAX_LINES).toBe(1_000_001);
    expect(DEFAULT_MAX_DECOMPRESSED_BYTES).toBe(4 * 2 ** 30);
  });

  it('the checked reader holds a bounded amount of output per step, even for one huge member', async () => {
    // One member of 128 MiB of zeros (~130 KB compressed): fflate inflates a whole step at once,
    // so its ~130 KB in one step would be 128 MiB in memory. Steps stay small while data expands like this.
    const member = nodeGzip(Buffer.alloc(128 * MIB), { level: 9 });
    let largest = 0;
    let total = 0;
    for await (const { data } of gunzip(new Uint8Array(member), { native: false })) {
      largest = Math.max(largest, data.length);
      total += data.length;
      if (total > 64 * MIB) break;
    }
    expect(largest).toBeLessThanOrEqual(40 * MIB);
    // And the line reader stops it at its byte bound without reading on.
    const error = await rejection(async () => {
      for await (const _ of gunzipLines(new Uint8Array(member), { maxDecompressedBytes: 16 * MIB, native: false })) void _;
    });
    expect(error.details).toMatchObject({ reason: 'too-large' });
  });
});
