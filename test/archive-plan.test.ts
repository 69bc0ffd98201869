import { describe, expect, it } from 'vitest';
import { gunzipLines } from '../src/core/archive/gzip.ts';
import type { ArchiveLine } from '../src/core/archive/gzip.ts';
import { cachedWrites, planImport, planWrites, validateImport } from '../src/core/archive/plan.ts';
import type { ConflictPolicy, ImportPlan, ImportPlanOptions, StoreLookup } from '../src/core/archive/plan.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { Memory } from '../src/core/types.ts';
import {
  FIXTURE_DIM,
  badRowsArchive,
  duplicateIdsArchive,
  goArchive,
  gzipPythonMember,
  pythonArchive,
  sampleMemories,
  sampleVectors,
  truncatedArchive,
} from './fixtures/make-archives.ts';
import { makeMemory } from './helpers/memory.ts';

const NOW = 1800000000;
const STORE = { embedderId: 'Xenova/all-MiniLM-L6-v2', dim: FIXTURE_DIM };

/** A fake store: id → text, counting lookups. */
function fakeStore(entries: Record<string, string> = {}): StoreLookup & { calls: string[][]; data: Map<string, string> } {
  const data = new Map(Object.entries(entries));
  const calls: string[][] = [];
  return {
    data,
    calls,
    async exists(ids) {
      calls.push([...ids]);
      return ids.map((id) => data.has(id));
    },
    async texts(ids) {
      return ids.map((id) => data.get(id) ?? null);
    },
  };
}

function sequentialIds(): () => string {
  let n = 0;
  return () => `fresh-${++n}`;
}

function options(lookup: StoreLookup, extra: Partial<ImportPlanOptions> = {}): ImportPlanOptions {
  return { store: STORE, lookup, now: NOW, newId: sequentialIds(), ...extra };
}

function plan(bytes: Uint8Array, lookup: StoreLookup, extra: Partial<ImportPlanOptions> = {}): Promise<ImportPlan> {
  return planImport(() => gunzipLines(bytes), options(lookup, extra));
}

async function failure(promise: Promise<unknown>): Promise<MemoryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  return error as MemoryError;
}

function memory(id: string, text: string, extra: Partial<Memory> = {}): Memory {
  return makeMemory(id, text, { createdAt: 1700000000, lastAccessed: 1700000000, ...extra });
}

const memories = sampleMemories();
const vectors = sampleVectors(memories.length);
const withVectors = pythonArchive({ memories, vectors });
const noVectors = pythonArchive({ memories });

describe('policies (§1.8)', () => {
  it('skip: rows already stored are skipped, the rest written with their vectors', async () => {
    const result = await plan(withVectors, fakeStore({ 'm-001': 'stored' }));
    expect(result.summary).toEqual({ imported: 3, skipped: 1, overwritten: 0, renamed: 0, errors: [], vectorsRegenerated: false });
    expect(result.writes.map((w) => [w.memory.id, w.mode, w.needsEmbedding])).toEqual([
      ['m-002', 'insert', false],
      ['m-003', 'insert', false],
      ['m-004', 'insert', false],
    ]);
    expect(Array.from(result.writes[0]?.vector ?? [])).toEqual(Array.from(vectors[1] as Float32Array));
    expect(result.writes[0]?.memory).toEqual(memories[1]);
  });

  it('skip: an intra-file duplicate is skipped in a real run and counted as imported in a dry run', async () => {
    const real = await plan(duplicateIdsArchive(), fakeStore());
    expect(real.summary).toMatchObject({ imported: 2, skipped: 1 });
    expect(real.writes.map((w) => [w.memory.id, w.memory.text])).toEqual([
      ['dup', 'first copy'],
      ['other', 'other row'],
    ]);
    const dry = await plan(duplicateIdsArchive(), fakeStore(), { dryRun: true });
    expect(dry.summary).toMatchObject({ imported: 3, skipped: 0 });
    expect(dry.writes).toEqual([]);
  });

  it('overwrite: stored ids and later duplicates replace what is there', async () => {
    const result = await plan(withVectors, fakeStore({ 'm-001': 'stored' }), { policy: 'overwrite' });
    expect(result.summary).toMatchObject({ imported: 3, overwritten: 1, skipped: 0 });
    expect(result.writes[0]).toMatchObject({ mode: 'overwrite', memory: memories[0] });

    const dup = await plan(duplicateIdsArchive(), fakeStore(), { policy: 'overwrite' });
    expect(dup.summary).toMatchObject({ imported: 2, overwritten: 1 });
    expect(dup.writes.map((w) => [w.memory.id, w.mode, w.memory.text])).toEqual([
      ['dup', 'insert', 'first copy'],
      ['other', 'insert', 'other row'],
      ['dup', 'overwrite', 'second copy'],
    ]);
    const dry = await plan(duplicateIdsArchive(), fakeStore(), { policy: 'overwrite', dryRun: true });
    expect(dry.summary).toMatchObject({ imported: 3, overwritten: 0 });
  });

  it('rename: a fresh id, and links between imported rows follow it', async () => {
    const hub = memory('hub', 'the hub', { createdAt: 1 });
    const spoke = memory('spoke', 'the spoke', { createdAt: 2, links: [{ to: 'hub', rel: 'refines' }, { to: 'elsewhere', rel: 'related' }] });
    const store = fakeStore({ hub: 'unrelated squatter' });
    const result = await plan(pythonArchive({ memories: [hub, spoke] }), store, { policy: 'rename' });
    expect(result.summary).toMatchObject({ imported: 1, renamed: 1, skipped: 0 });
    expect(result.renames).toEqual(new Map([['hub', 'fresh-1']]));
    expect(result.writes.map((w) => [w.memory.id, w.mode, w.renamedFrom])).toEqual([
      ['fresh-1', 'insert', 'hub'],
      ['spoke', 'insert', undefined],
    ]);
    expect(result.writes[1]?.memory.links).toEqual([
      { to: 'fresh-1', rel: 'refines' },
      { to: 'elsewhere', rel: 'related' },
    ]);
    expect(store.data.get('hub')).toBe('unrelated squatter'); // never touched
  });

  it('rename: superseded_by follows the rename', async () => {
    const old = memory('old', 'old belief', { createdAt: 1, supersededBy: 'new', supersededAt: 3 });
    const fresh = memory('new', 'new belief', { createdAt: 2, links: [{ to: 'old', rel: 'supersedes' }] });
    const result = await plan(pythonArchive({ memories: [old, fresh] }), fakeStore({ new: 'squats the new id' }), { policy: 'rename' });
    expect(result.writes.map((w) => [w.memory.id, w.memory.supersededBy])).toEqual([
      ['old', 'fresh-1'],
      ['fresh-1', ''],
    ]);
  });

  it('rename: a later intra-file duplicate is renamed and the file\'s references follow it, as in the reference', async () => {
    const result = await plan(duplicateIdsArchive(), fakeStore(), { policy: 'rename' });
    expect(result.summary).toMatchObject({ imported: 2, renamed: 1 });
    expect(result.writes.map((w) => [w.memory.id, w.memory.links])).toEqual([
      ['dup', [{ to: 'other', rel: 'related' }]],
      ['other', [{ to: 'fresh-1', rel: 'refines' }]],
      ['fresh-1', []],
    ]);
  });

  it('rename: a dry run counts but writes and re-points nothing', async () => {
    const dry = await plan(withVectors, fakeStore({ 'm-001': 'x', 'm-004': 'y' }), { policy: 'rename', dryRun: true });
    expect(dry.summary).toMatchObject({ imported: 2, renamed: 2 });
    expect(dry.writes).toEqual([]);
  });

  it('error: any collision aborts before a write, with every collision listed', async () => {
    const store = fakeStore({ 'm-001': `stored ${'é'.repeat(100)}` });
    const error = await failure(plan(withVectors, store, { policy: 'error' }));
    expect(error.code as string).toBe('IMPORT_CONFLICT');
    expect(error.details['collisions']).toEqual([{ id: 'm-001', reason: `stored ${'é'.repeat(73)}` }]);
    expect(error.message).toMatch(/^1 id collision\(s\) on import; first: /);
  });

  it('error: duplicate ids inside the file collide too, even in a dry run', async () => {
    for (const dryRun of [false, true]) {
      const error = await failure(plan(duplicateIdsArchive(), fakeStore(), { policy: 'error', dryRun }));
      expect(error.details['collisions']).toEqual([{ id: 'dup', reason: '(duplicate id within import file)' }]);
    }
  });

  it('error: the pre-scan never starts pass 2', async () => {
    const store = fakeStore({ 'm-004': 'last row collides' });
    let opened = 0;
    const error = await failure(
      planImport(
        () => {
          opened += 1;
          return gunzipLines(withVectors);
        },
        options(store, { policy: 'error' }),
      ),
    );
    expect(error.code as string).toBe('IMPORT_CONFLICT');
    expect(opened).toBe(1);
  });

  it('error: a malformed row still takes part in the pre-scan; no collision imports everything', async () => {
    const text = [
      '{"format":"ai-houkai/export","version":1}',
      '{"id":"taken","text":"x","meta":{"importance":null}}',
      '{"id":"free","text":"y"}',
    ].join('\n');
    const error = await failure(plan(gzipPythonMember(text), fakeStore({ taken: 'stored' }), { policy: 'error' }));
    expect(error.details['collisions']).toEqual([{ id: 'taken', reason: 'stored' }]);
    const ok = await plan(withVectors, fakeStore(), { policy: 'error' });
    expect(ok.summary).toMatchObject({ imported: 4 });
  });

  it('error: without a texts lookup the reason says the id is stored', async () => {
    const error = await failure(plan(withVectors, { exists: async (ids) => ids.map((id) => id === 'm-002') }, { policy: 'error' }));
    expect(error.details['collisions']).toEqual([{ id: 'm-002', reason: '(already in store)' }]);
  });

  it('rejects an unknown policy before reading anything', async () => {
    const never: AsyncIterable<ArchiveLine> = {
      [Symbol.asyncIterator]() {
        throw new Error('must not be read');
      },
    };
    const error = await failure(validateImport(never, options(fakeStore(), { policy: 'merge' as ConflictPolicy })));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('on_conflict must be one of: skip, overwrite, rename, error');
  });
});

describe('dry run (§1.9)', () => {
  it('reports the counts of a real run and writes nothing', async () => {
    const store = fakeStore({ 'm-002': 'x' });
    const dry = await plan(withVectors, store, { dryRun: true });
    const real = await plan(withVectors, store);
    expect(dry.summary).toEqual(real.summary);
    expect(dry.writes).toEqual([]);
  });

  it('has no second pass', async () => {
    const validation = await validateImport(gunzipLines(withVectors), options(fakeStore(), { dryRun: true }));
    await expect(planWrites(gunzipLines(withVectors), validation).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('vectors: reuse or regenerate (§1.10 + dimension check)', () => {
  const reuse = async (bytes: Uint8Array, extra: Partial<ImportPlanOptions> = {}): Promise<ImportPlan> => plan(bytes, fakeStore(), extra);

  it('reuses vectors when the model is the same under an alias, even with regenerateVectors', async () => {
    for (const model of ['all-MiniLM-L6-v2', 'sentence-transformers/all-MiniLM-L6-v2', 'Xenova/all-MiniLM-L6-v2']) {
      for (const regenerateVectors of [false, true]) {
        const result = await reuse(pythonArchive({ memories, vectors, model }), { regenerateVectors });
        expect(result.vectors.useVectors, model).toBe(true);
        expect(result.summary.vectorsRegenerated).toBe(false);
        expect(result.writes.every((w) => w.vector && !w.needsEmbedding)).toBe(true);
      }
    }
  });

  it('reuses vectors from a Go archive and when the file names no model', async () => {
    expect((await reuse(goArchive({ memories, vectors }))).vectors.useVectors).toBe(true);
    expect((await reuse(pythonArchive({ memories, vectors, model: '' }))).vectors.useVectors).toBe(true);
  });

  it('a different model fails without regenerateVectors and re-embeds with it', async () => {
    const other = pythonArchive({ memories, vectors, model: 'nomic-embed-text' });
    const error = await failure(reuse(other));
    expect(error.code as string).toBe('MODEL_MISMATCH');
    expect(error.details).toMatchObject({ reason: 'model', fileModel: 'nomic-embed-text', storeModel: STORE.embedderId });
    const result = await reuse(other, { regenerateVectors: true });
    expect(result.vectors).toMatchObject({ useVectors: false, rejected: 'model' });
    expect(result.summary.vectorsRegenerated).toBe(true);
    expect(result.writes.every((w) => w.vector === undefined && w.needsEmbedding)).toBe(true);
  });

  it('a vectorless file re-embeds whatever its model says', async () => {
    const result = await reuse(pythonArchive({ memories, model: 'nomic-embed-text' }));
    expect(result.summary).toMatchObject({ imported: 4, vectorsRegenerated: true });
    expect(result.writes.every((w) => w.needsEmbedding)).toBe(true);
  });

  it('vectorsRegenerated stays false when nothing is written', async () => {
    const store = fakeStore(Object.fromEntries(memories.map((m) => [m.id, m.text])));
    const result = await plan(noVectors, store);
    expect(result.summary).toMatchObject({ imported: 0, skipped: 4, vectorsRegenerated: false });
  });

  it('a header dimension other than the store\'s is a mismatch', async () => {
    const error = await failure(plan(withVectors, fakeStore(), { store: { ...STORE, dim: 384 } }));
    expect(error.details).toMatchObject({ reason: 'dimension', fileDim: FIXTURE_DIM, storeDim: 384 });
    const result = await plan(withVectors, fakeStore(), { store: { ...STORE, dim: 384 }, regenerateVectors: true });
    expect(result.vectors).toMatchObject({ useVectors: false, rejected: 'dimension' });
    expect(result.summary.vectorsRegenerated).toBe(true);
  });

  it('one row vector of the wrong length is a mismatch for the whole file', async () => {
    const short = vectors.map((v, i) => (i === 2 ? v.subarray(0, 4) : v));
    const bytes = pythonArchive({ memories, vectors: short });
    const error = await failure(plan(bytes, fakeStore()));
    expect(error.details).toMatchObject({ reason: 'vector', lineNo: 4, vectorLength: 4 });
    const result = await plan(bytes, fakeStore(), { regenerateVectors: true });
    expect(result.vectors).toMatchObject({ useVectors: false, rejected: 'vector' });
    expect(result.writes.every((w) => w.needsEmbedding)).toBe(true);
  });

  it('a row without a vector in a vectors file is embedded on its own', async () => {
    const partial = vectors.map((v, i) => (i === 1 ? undefined : v)) as Float32Array[];
    const validation = await validateImport(gunzipLines(pythonArchive({ memories, vectors: partial })), options(fakeStore()));
    expect(validation).toMatchObject({ writes: 4, toEmbed: 1 });
    expect(validation.summary.vectorsRegenerated).toBe(false);
    const result = await plan(pythonArchive({ memories, vectors: partial }), fakeStore());
    expect(result.writes.map((w) => w.needsEmbedding)).toEqual([false, true, false, false]);
  });
});

describe('bad rows and broken archives', () => {
  it('reports bad rows as line:N (bad JSON first) and imports the rest', async () => {
    const result = await plan(badRowsArchive(), fakeStore());
    expect(result.summary.imported).toBe(2);
    expect(result.writes.map((w) => w.memory.id)).toEqual(['good-1', 'good-2']);
    expect(result.summary.errors.map((e) => [e.where, e.id])).toEqual([
      ['line:3', null],
      ['line:5', 'null-imp'],
      ['line:6', 'str-tags'],
      ['line:7', 'no-text'],
      ['line:9', 'null-type'],
    ]);
    expect(result.summary.errors[0]?.message).toMatch(/^bad json: /);
    // A row without created_at gets the import's `now`.
    expect(result.writes[1]?.memory.createdAt).toBe(NOW);
  });

  it('a truncated archive fails in pass 1, before any write', async () => {
    let opened = 0;
    const error = await failure(
      planImport(
        () => {
          opened += 1;
          return gunzipLines(truncatedArchive());
        },
        options(fakeStore()),
      ),
    );
    expect(error.details['reason']).toBe('truncated');
    expect(opened).toBe(1);
  });

  it('pass 2 notices an archive that changed since pass 1', async () => {
    const validation = await validateImport(gunzipLines(withVectors), options(fakeStore()));
    const other = pythonArchive({ memories: memories.map((m) => ({ ...m, id: `${m.id}-x` })), vectors });
    const error = await failure(
      (async () => {
        for await (const _ of planWrites(gunzipLines(other), validation)) void _;
      })(),
    );
    expect(error.details['reason']).toBe('changed');
  });
});

describe('two-pass shape', () => {
  it('pass 2 yields batches with progress, and the summary is known after pass 1', async () => {
    const many = Array.from({ length: 9 }, (_, i) => memory(`id-${i}`, `text ${i}`, { createdAt: i }));
    const bytes = pythonArchive({ memories: many });
    const progress: unknown[] = [];
    const validation = await validateImport(gunzipLines(bytes), options(fakeStore({ 'id-4': 'x' }), { lookupBatchSize: 4 }));
    expect(validation).toMatchObject({ lines: 10, writes: 8, toEmbed: 8 });
    expect(validation.summary).toMatchObject({ imported: 8, skipped: 1 });
    const batches = [];
    for await (const batch of planWrites(gunzipLines(bytes), validation, { batchSize: 3, onProgress: (p) => progress.push(p) })) {
      batches.push([batch.writes.map((w) => w.memory.id), batch.rowsWritten]);
    }
    expect(batches).toEqual([
      [['id-0', 'id-1', 'id-2'], 3],
      [['id-3', 'id-5', 'id-6'], 6],
      [['id-7', 'id-8'], 8],
    ]);
    expect(progress.at(-1)).toMatchObject({ phase: 'write', rowsRead: 10, bytesIn: bytes.length });
  });

  it('looks ids up in batches and accepts a plain exists(id) function', async () => {
    const store = fakeStore();
    await validateImport(gunzipLines(withVectors), options(store, { lookupBatchSize: 3 }));
    expect(store.calls).toEqual([['m-001', 'm-002', 'm-003'], ['m-004']]);
    const asked: string[] = [];
    const result = await plan(withVectors, fakeStore(), {
      lookup: async (id: string) => {
        asked.push(id);
        return id === 'm-003';
      },
    });
    expect(asked).toEqual(['m-001', 'm-002', 'm-003', 'm-004']);
    expect(result.summary).toMatchObject({ imported: 3, skipped: 1 });
  });
});

describe('rows kept by pass 1 (one read of the file)', () => {
  const linked = (): Uint8Array => {
    const hub = makeMemory('hub', 'the hub', { createdAt: 1 });
    const spoke = makeMemory('spoke', 'a spoke', { createdAt: 2, links: [{ to: 'hub', rel: 'related' }], supersededBy: 'hub' });
    return pythonArchive({ memories: [...memories, hub, spoke], vectors: [...vectors, ...sampleVectors(2, FIXTURE_DIM, 11)] });
  };
  const stored = { 'm-002': 'stored', hub: 'squatter' };

  it('cachedWrites yields exactly the writes a second read would, for every policy and in the same batches', async () => {
    for (const bytes of [linked(), duplicateIdsArchive(), badRowsArchive()]) {
      for (const policy of ['skip', 'overwrite', 'rename'] as const) {
        const kept = await validateImport(gunzipLines(bytes), options(fakeStore(stored), { policy, keepRowsBytes: 2 ** 20 }));
        const reread = await validateImport(gunzipLines(bytes), options(fakeStore(stored), { policy }));
        expect(kept.rows).not.toBeNull();
        expect(kept.rows!.length).toBe(kept.writes);
        expect(reread.rows).toBeNull();
        expect(kept.summary).toEqual(reread.summary);
        const fromRows = [];
        for await (const batch of cachedWrites(kept, { batchSize: 2 })) fromRows.push([batch.writes, batch.rowsWritten, batch.rowsRead]);
        const fromFile = [];
        for await (const batch of planWrites(gunzipLines(bytes), reread, { batchSize: 2 })) fromFile.push([batch.writes, batch.rowsWritten, batch.rowsRead]);
        expect(fromRows).toEqual(fromFile);
        expect(fromRows.length).toBeGreaterThan(0);
        // The rows are handed out once.
        await expect(cachedWrites(kept).next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      }
    }
  });

  it('keeps nothing when the rows outgrow the budget, or in a dry run', async () => {
    const small = await validateImport(gunzipLines(withVectors), options(fakeStore(), { keepRowsBytes: 1500 }));
    expect(small.rows).toBeNull();
    expect(small.writes).toBe(4);
    const dry = await validateImport(gunzipLines(withVectors), options(fakeStore(), { keepRowsBytes: 2 ** 20, dryRun: true }));
    expect(dry.rows).toBeNull();
  });
});
