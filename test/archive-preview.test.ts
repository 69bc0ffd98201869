/**
 * Issue 15, finding 5: the import preview says what the import will do, and the progress is
 * monotone and true.
 *
 * - A file the import will refuse (a newer format version) is a refusal in the preview, and no
 *   import is offered; broken lines and repeated ids are listed, as the import reports them.
 * - Progress: rows checked never exceed the preview's rows ("31 of 30"), writing counts rows
 *   written of the rows to write, and the bar only grows and reaches 100% with the last row
 *   (not beside "Writing… 1,500 memories").
 */
import { describe, expect, it } from 'vitest';
import { importBlocker, importFraction, importProgressLine, type ImportProgress } from '../src/app/lib/import-progress.ts';
import { createMemory } from '../src/local.ts';
import { badRowsArchive, duplicateIdsArchive, futureVersionArchive, pythonArchive, sampleVectors } from './fixtures/make-archives.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { makeMemory } from './helpers/memory.ts';
import { openTestStore } from './helpers/store.ts';

const choice = { policy: 'skip' as const, needsEmbedding: false, regenerate: true };

describe('import preview', () => {
  it('a newer format version is a refusal, not a warning: the preview offers no import, and the import does refuse it', async () => {
    const store = await openTestStore();
    const info = await store.archiveInfo(futureVersionArchive());
    expect(info.refusal).toMatchObject({ code: 'INVALID_ARCHIVE', reason: 'future-version' });
    expect(info.refusal!.message).toMatch(/newer AI-Houkai \(format version 99\)/);
    expect(info.warnings).toEqual([]);
    expect(importBlocker({ info, ...choice })).toBe(info.refusal!.message);
    await expect(store.importArchive(futureVersionArchive())).rejects.toMatchObject({ code: 'INVALID_ARCHIVE', details: { reason: 'future-version' } });
    await store.close();
  });

  it('broken lines and rows that do not build are listed with their lines, exactly the rows the import reports', async () => {
    const store = await openTestStore();
    const info = await store.archiveInfo(badRowsArchive());
    expect(info.rows).toBe(7); // 8 lines after the header, one blank
    expect(info.validRows).toBe(2);
    expect(info.problemCount).toBe(5);
    expect(info.duplicateIds).toBe(0);
    expect(info.problems.find((p) => p.where === 'line:3')).toMatchObject({ kind: 'bad-json' });
    expect(info.problems.find((p) => p.where === 'line:7')).toMatchObject({ kind: 'malformed', id: 'no-text' });
    const dry = await store.importArchive(badRowsArchive(), { dryRun: true });
    expect(info.problems.map((p) => p.where).sort()).toEqual(dry.errors.map((e) => e.where).sort());
    expect(importBlocker({ info, ...choice })).toBeNull();
    await store.close();
  });

  it('an id repeated in the file is listed; “Stop on conflict” is not offered for it, the other policies are', async () => {
    const store = await openTestStore();
    const info = await store.archiveInfo(duplicateIdsArchive());
    expect(info).toMatchObject({ rows: 3, validRows: 3, duplicateIds: 1, problemCount: 1, refusal: null });
    expect(info.problems).toEqual([{ where: 'line:4', id: 'dup', kind: 'duplicate-id', message: 'id "dup" already used on line 2' }]);
    expect(importBlocker({ info, ...choice, policy: 'error' })).toMatch(/Stop on conflict.*1 id repeats/);
    await expect(store.importArchive(duplicateIdsArchive(), { onConflict: 'error' })).rejects.toMatchObject({ code: 'IMPORT_CONFLICT' });
    for (const policy of ['skip', 'overwrite', 'rename'] as const) expect(importBlocker({ info, ...choice, policy })).toBeNull();
    // Vectors this store cannot use, without re-embedding: refused, so not offered either.
    expect(importBlocker({ info: { ...info, hasVectors: true }, ...choice, needsEmbedding: true, regenerate: false })).toMatch(/re-embedding/);
    await store.close();
  });
});

describe('import progress', () => {
  it('is monotone and true: rows checked of the preview’s rows, then rows written of the rows to write; 100% only with the last row', async () => {
    const DIM = 16;
    const n = 1_500;
    const memories = Array.from({ length: n }, (_, i) => makeMemory(`p-${i}`, `progress row ${i}`, { createdAt: 1_700_000_000 + i, lastAccessed: 1_700_000_000 + i }));
    const archive = pythonArchive({ memories, vectors: sampleVectors(n, DIM, 3), dim: DIM, model: 'hash-16' });
    const store = await createMemory({ name: `progress-${process.pid}-${Date.now()}`, embedder: createHashEmbedder({ dim: DIM }), index: 'exact' });
    // One row already there: skipped, so the rows to write are fewer than the rows of the file.
    await store.importArchive(pythonArchive({ memories: memories.slice(0, 1), vectors: sampleVectors(1, DIM, 3), dim: DIM, model: 'hash-16' }));
    const info = await store.archiveInfo(archive);
    expect(info.rows).toBe(n);

    const events: ImportProgress[] = [];
    const result = await store.importArchive(archive, { batchSize: 200, onProgress: (e) => void (e.kind === 'import' && events.push(e)) });
    expect(result.imported).toBe(n - 1);

    const reads = events.filter((e) => e.phase === 'read');
    const writes = events.filter((e) => e.phase === 'write');
    expect(reads.length).toBeGreaterThan(1);
    for (const e of reads) expect(e.rowsRead).toBeLessThanOrEqual(info.rows);
    expect(reads.at(-1)!.rowsRead).toBe(info.rows);
    expect(writes[0]).toMatchObject({ rowsWritten: 0, writesTotal: n - 1 });
    expect(writes.at(-1)).toMatchObject({ rowsWritten: n - 1, writesTotal: n - 1 });
    for (const e of writes) expect(e.rowsWritten).toBeLessThanOrEqual(e.writesTotal!);

    const fractions = events.map((e) => importFraction(e, info.rows));
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]!).toBeGreaterThanOrEqual(fractions[i - 1]!);
    expect(fractions.slice(0, -1).every((f) => f < 1)).toBe(true);
    expect(fractions.at(-1)).toBe(1);
    // The line beside the bar agrees with it.
    const lines = events.map((e) => importProgressLine(e, info.rows, false));
    expect(lines[0]).toMatch(/^Checking rows… [\d,]+ of 1,500$/);
    expect(lines).toContain('Checking rows… 1,500 of 1,500');
    expect(lines.at(-1)).toBe('Writing… 1,499 of 1,499 memories');
    events.forEach((e, i) => {
      if (e.phase === 'write' && e.rowsWritten < e.writesTotal!) expect(fractions[i]!).toBeLessThan(1);
    });
    await store.close();
  });
});
