import { describe, expect, it } from 'vitest';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { openDexieStorage, SCHEMA_VERSION } from '../src/adapters/storage-dexie.ts';
import { importArchive as importWithDeps } from '../src/core/archive/store-ops.ts';
import { createStoreContext } from '../src/core/store.ts';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory, type LocalMemory, type Memory } from '../src/local.ts';
import {
  FIXTURE_DIM,
  badRowsArchive,
  duplicateIdsArchive,
  emptyArchive,
  futureVersionArchive,
  goArchive,
  headerNotJsonArchive,
  multiMemberArchive,
  notGzipFile,
  pythonArchive,
  sampleMemories,
  sampleVectors,
  truncatedArchive,
  wrongFormatArchive,
} from './fixtures/make-archives.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

const MEMORIES = sampleMemories();
const VECTORS = sampleVectors(MEMORIES.length);
const withVectors = (): Uint8Array => pythonArchive({ memories: MEMORIES, vectors: VECTORS });

/** A store whose embedder has MiniLM's transformers.js id and the fixtures' dimension. */
function minilmLike(dim = FIXTURE_DIM): Embedder & { calls: number } {
  return createHashEmbedder({ id: 'Xenova/all-MiniLM-L6-v2', dim });
}

async function open(embedder: Embedder = minilmLike(), name = uniqueName('archive')): Promise<LocalMemory> {
  return createMemory({ name, embedder, index: 'exact' });
}

async function everything(store: LocalMemory): Promise<Memory[]> {
  return (await store.listRecent({ limit: 10_000, includeSuperseded: true, includeExpired: true })).sort((a, b) => a.id.localeCompare(b.id));
}

/** Asserts a failing call leaves the store exactly as it was. */
async function expectUnchanged(store: LocalMemory, call: () => Promise<unknown>, match: object): Promise<void> {
  const before = await everything(store);
  const size = (await store.stats()).index.size;
  await expect(call()).rejects.toMatchObject(match);
  expect(await everything(store)).toEqual(before);
  expect((await store.stats()).index.size).toBe(size);
}

describe('importArchive', () => {
  it('imports a Python archive with its vectors: every field kept, no re-embedding, searchable at once', async () => {
    const embedder = minilmLike();
    const store = await open(embedder);
    const calls = embedder.calls;
    const result = await store.importArchive(withVectors());
    expect(result).toEqual({ imported: 4, skipped: 0, overwritten: 0, renamed: 0, errors: [], vectorsRegenerated: false });
    expect(embedder.calls).toBe(calls);
    expect(await everything(store)).toEqual(MEMORIES);
    const hit = await store.recall('anything', { k: 10, includeSuperseded: true, includeExpired: true, touch: false });
    expect(hit.length).toBe(4);
    await store.close();
  });

  it('reads Go-style and multi-member archives to the same memories', async () => {
    for (const bytes of [goArchive({ memories: MEMORIES, vectors: VECTORS }), multiMemberArchive({ memories: MEMORIES, vectors: VECTORS })]) {
      const store = await open();
      await store.importArchive(new Blob([bytes as BlobPart]));
      expect(await everything(store)).toEqual(MEMORIES);
      await store.close();
    }
  });

  it('applies each id-collision policy with the reference semantics', async () => {
    const store = await open();
    await store.importArchive(withVectors());
    const before = await everything(store);

    expect(await store.importArchive(withVectors())).toMatchObject({ imported: 0, skipped: 4 });
    expect(await everything(store)).toEqual(before);

    const changed = MEMORIES.map((m) => ({ ...m, text: `${m.text} (v2)` }));
    expect(await store.importArchive(pythonArchive({ memories: changed, vectors: VECTORS }), { onConflict: 'overwrite' })).toMatchObject({ overwritten: 4 });
    expect((await store.get('m-001'))!.text).toBe('Prefers dark mode in every editor (v2)');
    expect(await store.count()).toBe(4);

    const renamed = await store.importArchive(withVectors(), { onConflict: 'rename' });
    expect(renamed).toMatchObject({ renamed: 4, imported: 0 });
    const all = await everything(store);
    expect(all.length).toBe(8);
    const fresh = all.filter((m) => !m.id.startsWith('m-'));
    const newOf = (old: string): string => fresh.find((m) => m.text === MEMORIES.find((x) => x.id === old)!.text)!.id;
    // Links and superseded_by inside the import now point at the renamed copies.
    expect(fresh.find((m) => m.text === 'New belief')!.links).toEqual([{ to: newOf('m-003'), rel: 'supersedes' }]);
    expect(fresh.find((m) => m.text === 'Old belief that was replaced')!.supersededBy).toBe(newOf('m-004'));
    expect((await store.stats()).index.size).toBe(8);

    await expectUnchanged(store, () => store.importArchive(withVectors(), { onConflict: 'error' }), {
      code: 'IMPORT_CONFLICT',
      details: { collisions: expect.arrayContaining([expect.objectContaining({ id: 'm-001' })]) },
    });
    await store.close();
  });

  it("the 'error' policy counts duplicate ids inside the file and writes nothing", async () => {
    const store = await open();
    await expectUnchanged(store, () => store.importArchive(duplicateIdsArchive(), { onConflict: 'error' }), {
      code: 'IMPORT_CONFLICT',
      details: { collisions: [{ id: 'dup', reason: '(duplicate id within import file)' }] },
    });
    // skip: the first occurrence is written, the later one skipped; a dry run counts both.
    expect(await store.importArchive(duplicateIdsArchive(), { dryRun: true })).toMatchObject({ imported: 3 });
    expect(await store.count()).toBe(0);
    expect(await store.importArchive(duplicateIdsArchive())).toMatchObject({ imported: 2, skipped: 1 });
    expect((await store.get('dup'))!.text).toBe('first copy');
    await store.close();
  });

  const headerErrors: [string, () => Uint8Array, string][] = [
    ['not gzip', notGzipFile, 'not-gzip'],
    ['empty', emptyArchive, 'empty'],
    ['header not JSON', headerNotJsonArchive, 'not-json'],
    ['wrong format', wrongFormatArchive, 'bad-format'],
    ['future version', futureVersionArchive, 'future-version'],
    ['truncated', () => truncatedArchive({ memories: MEMORIES, vectors: VECTORS }), 'truncated'],
  ];
  it.each(headerErrors)('%s → INVALID_ARCHIVE (%s) and nothing written', async (_label, make, reason) => {
    const store = await open();
    await store.remember('already here');
    await expectUnchanged(store, () => store.importArchive(make()), { code: 'INVALID_ARCHIVE', details: { reason } });
    await store.close();
  });

  it('records bad rows as line:N and imports the rest', async () => {
    const store = await open();
    const result = await store.importArchive(badRowsArchive());
    expect(result.imported).toBe(2);
    expect(result.errors.map((e) => e.where)).toEqual(expect.arrayContaining(['line:3', 'line:5', 'line:6', 'line:7', 'line:9']));
    expect(result.vectorsRegenerated).toBe(true);
    expect((await store.get('good-2'))!.text).toBe('bare row');
    await store.close();
  });

  it('reuses vectors only for the same model and dimension; otherwise re-embeds when asked, else MODEL_MISMATCH', async () => {
    const other = createHashEmbedder({ id: 'universal-sentence-encoder-lite', dim: FIXTURE_DIM });
    const store = await open(other);
    await expectUnchanged(store, () => store.importArchive(withVectors()), { code: 'MODEL_MISMATCH' });
    const before = other.calls;
    expect(await store.importArchive(withVectors(), { regenerateVectors: true })).toMatchObject({ imported: 4, vectorsRegenerated: true });
    expect(other.calls).toBeGreaterThan(before);
    await store.close();

    const wide = await open(minilmLike(16));
    await expectUnchanged(wide, () => wide.importArchive(withVectors()), { code: 'MODEL_MISMATCH', details: { reason: 'dimension' } });
    expect(await wide.importArchive(withVectors(), { regenerateVectors: true })).toMatchObject({ imported: 4, vectorsRegenerated: true });
    await wide.close();

    // A vectorless archive always re-embeds, whatever its model.
    const plain = await open();
    expect(await plain.importArchive(pythonArchive({ memories: MEMORIES, model: 'nomic-embed-text' }))).toMatchObject({ imported: 4, vectorsRegenerated: true });
    await plain.close();
  });

  it('a dry run predicts the real counts and writes nothing', async () => {
    const store = await open();
    await store.importArchive(pythonArchive({ memories: MEMORIES.slice(0, 2), vectors: VECTORS.slice(0, 2) }));
    const predicted = await store.importArchive(withVectors(), { dryRun: true, onConflict: 'rename' });
    expect(await store.count()).toBe(2);
    expect(await store.importArchive(withVectors(), { onConflict: 'rename' })).toEqual(predicted);
    await store.close();
  });

  it('a cancelled import rolls back, restoring overwritten memories, with progress until then', async () => {
    const store = await open();
    await store.importArchive(withVectors());
    const before = await everything(store);
    const changed = MEMORIES.map((m) => ({ ...m, text: `${m.text} (changed)` }));
    const controller = new AbortController();
    const phases: string[] = [];
    await expectUnchanged(
      store,
      () =>
        store.importArchive(pythonArchive({ memories: changed, vectors: VECTORS }), {
          onConflict: 'overwrite',
          batchSize: 1,
          signal: controller.signal,
          onProgress: (e) => {
            if (e.kind !== 'import') return;
            phases.push(e.phase);
            if (e.phase === 'write' && e.rowsWritten === 2) controller.abort();
          },
        }),
      { code: 'ABORTED' },
    );
    expect(phases).toContain('read');
    // The writing starts at 0 of N, then one event per batch until the cancel after the second.
    expect(phases.filter((p) => p === 'write')).toEqual(['write', 'write', 'write']);
    expect(await everything(store)).toEqual(before);
    await store.close();
  });

  it('an import interrupted by a crash is rolled back when the store next opens', async () => {
    const name = uniqueName('crash');
    const store = await open(minilmLike(), name);
    await store.remember('kept from before');
    await store.close();
    // What a tab killed mid-import leaves behind: a written batch, its undo log, and a lease
    // nobody renews any more (a minute old).
    const storage = await openDexieStorage(name);
    const then = Date.now() / 1000 - 60;
    await storage.beginImport({ importId: 'import-1', owner: 'dead-tab', startedAt: then, heartbeatAt: then, ttl: 30, lock: null });
    await storage.importBatch('import-1', [{ memory: MEMORIES[0]!, vector: VECTORS[0]! }]);
    storage.close();
    const reopened = await open(minilmLike(), name);
    expect((await everything(reopened)).map((m) => m.text)).toEqual(['kept from before']);
    expect((await reopened.stats()).index.size).toBe(1);
    await reopened.close();
  });

  it('round trip: export then import into an empty store gives identical memories and vectors', async () => {
    const source = await open();
    await source.importArchive(withVectors());
    await source.rememberMany(['a fresh memory', { text: 'with patterns', surfacesWhen: ['*.sql'] }]);
    const blob = await source.exportArchive({ includeSuperseded: true });
    const target = await open();
    expect(await target.importArchive(blob)).toMatchObject({ imported: 6, vectorsRegenerated: false });
    expect(await everything(target)).toEqual(await everything(source));
    // Vectors to float32 precision: the second export carries the same rows byte for byte.
    const again = await target.exportArchive({ includeSuperseded: true });
    const rows = async (b: Blob): Promise<string[]> => {
      const text = await new Response(b.stream().pipeThrough(new DecompressionStream('gzip'))).text();
      return text.split('\n').slice(1);
    };
    expect(await rows(again)).toEqual(await rows(blob));
    await source.close();
    await target.close();
  });
});

describe('importArchive: rows kept by pass 1, or the archive read twice', () => {
  /** The store-ops import over a bare Dexie storage and exact index, with a chosen row budget. */
  async function bare(keepRowsBytes?: number) {
    const name = uniqueName('bare');
    const storage = await openDexieStorage(name);
    await storage.initMeta({ schemaVersion: SCHEMA_VERSION, embedderId: 'Xenova/all-MiniLM-L6-v2', dim: FIXTURE_DIM, generation: 0, nextLabel: 0, createdAt: 1 });
    const index = createExactIndex({ dim: FIXTURE_DIM });
    let fresh = 0;
    const deps = createStoreContext({
      name,
      storage,
      index,
      embedder: { id: 'Xenova/all-MiniLM-L6-v2', dim: FIXTURE_DIM, embed: async (texts) => texts.map(() => new Float32Array(FIXTURE_DIM).fill(0.5)) },
      clock: { now: () => 1_800_000_000 },
      ids: { next: () => `fresh-${++fresh}` },
      random: { next: () => 0.5 },
      actor: 'test',
      meta: (await storage.readMeta())!,
      ...(keepRowsBytes === undefined ? {} : { settings: { keepRowsBytes } }),
    });
    const state = async () => ({
      memories: (await storage.allMemories()).sort((a, b) => a.id.localeCompare(b.id)),
      vectors: index.size(),
      journal: (await storage.journalRead({ newest: 1000 })).map((e) => [e.op, e.id]),
    });
    return { deps, storage, state };
  }

  it('writes the same whether pass 1 kept the rows or the archive is read again, and a cancel rolls back either way', async () => {
    const archive = withVectors();
    for (const policy of ['overwrite', 'rename'] as const) {
      const results = [];
      for (const keep of [undefined, 0]) {
        const { deps, storage, state } = await bare(keep);
        await importWithDeps(deps, duplicateIdsArchive());
        await importWithDeps(deps, pythonArchive({ memories: MEMORIES.slice(0, 2), vectors: VECTORS.slice(0, 2) }));
        const before = await state();
        const controller = new AbortController();
        await expect(
          importWithDeps(deps, archive, {
            onConflict: policy,
            batchSize: 1,
            signal: controller.signal,
            onProgress: (e) => void (e.kind === 'import' && e.phase === 'write' && controller.abort()),
          }),
        ).rejects.toMatchObject({ code: 'ABORTED' });
        expect(await state()).toEqual(before);
        const summary = await importWithDeps(deps, new Blob([archive as BlobPart]), { onConflict: policy, batchSize: 3 });
        results.push({ summary, after: await state() });
        storage.close();
      }
      expect(results[0]!.summary).toMatchObject(policy === 'overwrite' ? { imported: 2, overwritten: 2 } : { imported: 2, renamed: 2 });
      expect(results[1]).toEqual(results[0]);
    }
  });
});

describe('exportArchive and archiveInfo', () => {
  it('exports in created-at order with the filters, and info reads it without touching a store', async () => {
    const store = await open();
    await store.importArchive(withVectors());
    const all = await store.archiveInfo(await store.exportArchive({ includeSuperseded: true }));
    expect(all).toMatchObject({ rows: 4, hasVectors: true, model: 'all-MiniLM-L6-v2', dim: FIXTURE_DIM, warnings: [] });
    expect((await store.archiveInfo(await store.exportArchive())).rows).toBe(3); // superseded left out
    expect((await store.archiveInfo(await store.exportArchive({ types: ['semantic'] }))).rows).toBe(1);
    expect((await store.archiveInfo(await store.exportArchive({ tags: ['prefs'] }))).rows).toBe(2);
    expect((await store.archiveInfo(await store.exportArchive({ since: 1788221000 }))).rows).toBe(1);
    const vectorless = await store.archiveInfo(await store.exportArchive({ includeVectors: false }));
    expect(vectorless).toMatchObject({ hasVectors: false, dim: 0 });
    const future = await store.archiveInfo(futureVersionArchive());
    expect(future.refusal).toMatchObject({ code: 'INVALID_ARCHIVE', reason: 'future-version' });
    await expect(store.archiveInfo(notGzipFile())).rejects.toMatchObject({ code: 'INVALID_ARCHIVE' });
    await expect(store.exportArchive({ types: ['opinion' as never] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(store.importArchive(withVectors(), { onConflict: 'merge' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await store.close();
  });
});
