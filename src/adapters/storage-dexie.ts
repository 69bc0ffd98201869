/**
 * The Dexie (IndexedDB) adapter for the `MemoryStorage` port. One database per named store,
 * so stores are isolated the way AI-Houkai's collections are. Raw IndexedDB failures are
 * mapped to `MemoryError` here and nowhere else.
 */
import { mapStorageError, type IndexedDbOptions } from './indexeddb-errors.ts';
import Dexie, { type Table, type Transaction } from 'dexie';
import { lexicalFields, nominateCandidates } from '../core/domain/lexical-index.ts';
import { MemoryError } from '../core/errors.ts';
import type {
  GraphChanges,
  ImportLease,
  JournalContext,
  JournalEntry,
  JournalHorizon,
  LexicalCandidate,
  ListQuery,
  MemoryStorage,
  StoreMeta,
  StoredCounts,
} from '../core/ports.ts';
import type { PendingConflict } from '../core/domain/review.ts';
import { sameState } from '../core/domain/undo-plan.ts';
import { compactEntry } from '../core/domain/journal-patch.ts';
import { MEMORY_TYPES, type Memory } from '../core/types.ts';
import { fromHalf, toHalf } from '../core/domain/half-float.ts';

interface MemoryRow extends Memory {
  label: number;
  /** Distinct lexical terms of the text: a multi-entry index, the persistent inverted index. */
  terms: string[];
  /** Occurrences of each term in `terms`, aligned. */
  termCounts: number[];
  /** Total number of terms (the BM25 document length). */
  termLength: number;
  /** Distinct link targets: a multi-entry index, so incoming links are an index lookup. */
  linkTargets: string[];
  /** Set on a superseded memory whose pin moved to its superseder, so restore can hand it back. */
  pinMoved?: boolean;
  /**
   * `supersededBy`, present only when the memory is superseded: a sparse index (IndexedDB leaves
   * a row out of an index whose key it lacks), so active memories cost it nothing (schema v11).
   */
  superseded?: string;
  /** 1, present only when the polarity is positive: the sparse index that says whether any is (v11). */
  positive?: 1;
}

/** The sparse index fields: present only on the memories they index (schema v11). */
function sparseFields(memory: Pick<Memory, 'supersededBy' | 'polarity'>): Pick<MemoryRow, 'superseded' | 'positive'> {
  return {
    ...(memory.supersededBy ? { superseded: memory.supersededBy } : {}),
    ...(memory.polarity === 1 ? { positive: 1 as const } : {}),
  };
}

/** The derived, indexed fields stored beside a memory. */
function derivedFields(memory: Memory): Pick<MemoryRow, 'terms' | 'termCounts' | 'termLength' | 'linkTargets' | 'superseded' | 'positive'> {
  return { ...lexicalFields(memory.text), linkTargets: [...new Set(memory.links.map((l) => l.to))], ...sparseFields(memory) };
}

/**
 * A vector as stored: binary16 codes from schema v11 on (half the bytes of float32, see
 * core/domain/half-float.ts); rows written before hold float32 and still read.
 */
type StoredVector = Uint16Array | Float32Array;
interface VectorRow {
  label: number;
  vector: StoredVector;
  gen: number;
  /** Written before schema v11: the memory's id (nothing reads it; v11 drops it). */
  id?: string;
}

/** What a vector is stored as. */
const storedVector = (vector: Float32Array): Uint16Array => toHalf(vector);
/** A stored vector as the float32 every reader gets (a float32 row, from before v11, as it is). */
const loadedVector = (stored: StoredVector): Float32Array => (stored instanceof Uint16Array ? fromHalf(stored) : stored);
interface TombstoneRow {
  label: number;
  gen: number;
}
interface StagedRow {
  embedderId: string;
  id: string;
  contentHash: string;
  vector: StoredVector;
}
/** What an import in progress changed, so it can be undone (rollback) or forgotten (commit). */
interface ImportUndoRow {
  importId: string;
  id: string;
  /** 'inserted': the id did not exist before this import; 'overwritten': `row`/`vector` held it. */
  kind: 'inserted' | 'overwritten';
  row?: MemoryRow;
  vector?: StoredVector;
}
/** A memory moved to the trash, with its vector so a restore needs no model. */
interface TrashRow {
  seq?: number;
  id: string;
  deletedAt: number;
  actor: string;
  memory: Memory;
  vector?: StoredVector;
}
interface MetaRow {
  key: 'store';
  value: StoreMeta;
}
interface SettingRow {
  key: string;
  value: unknown;
}

/** An upgrade that derives every row's lexical fields and the corpus statistics again. */
function reindexLexicalTerms(): (tx: Transaction) => Promise<void> {
  return async (tx) => {
    let docs = 0;
    let length = 0;
    await tx
      .table('memories')
      .toCollection()
      .modify((row: MemoryRow) => {
        Object.assign(row, lexicalFields(row.text));
        docs += 1;
        length += row.termLength;
      });
    await tx
      .table('meta')
      .toCollection()
      .modify((row: MetaRow) => {
        row.value.lexicalDocs = docs;
        row.value.lexicalLength = length;
      });
  };
}

/** One schema step on an existing database: its own work, if any, then the version it leaves in the metadata row. */
async function upgradeTo(version: number, tx: Transaction, step: SchemaVersion['upgrade'], progress: (done: number, total: number) => void): Promise<void> {
  if (step) await step(tx, progress);
  await tx
    .table('meta')
    .toCollection()
    .modify((row: MetaRow) => {
      row.value.schemaVersion = version;
    });
}

/**
 * Dexie schema history. Append-only: a released version is never edited, a change adds a new
 * entry with its upgrade function (and a migration test in test/storage-dexie.test.ts).
 */
export interface SchemaVersion {
  version: number;
  stores: Record<string, string>;
  /** `progress(done, total)`: how far a long upgrade has got (rows rewritten). */
  upgrade?: (tx: Transaction, progress: (done: number, total: number) => void) => Promise<void>;
}

/** Rewrites every float32 vector of `table` (field `vector`) as binary16, reporting each row. */
async function halveVectors(tx: Transaction, table: string, dropId: boolean, advance: () => void): Promise<void> {
  await tx
    .table(table)
    .toCollection()
    .modify((row: { vector?: StoredVector; id?: string }) => {
      advance();
      const rewrite = row.vector instanceof Float32Array || (dropId && 'id' in row);
      if (!rewrite) return false; // Dexie writes back only the rows a modifier changed
      if (row.vector instanceof Float32Array) row.vector = storedVector(row.vector);
      if (dropId) delete row.id;
      return true;
    });
}

export const SCHEMA_VERSIONS: readonly SchemaVersion[] = [
  {
    version: 1,
    stores: {
      meta: 'key',
      memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash',
      vectors: 'label, gen',
      tombstones: 'label, gen',
      staged: '[embedderId+id], embedderId',
    },
  },
  {
    // v2: the persistent lexical index for corpus BM25 (`*terms`), built for existing rows.
    version: 2,
    stores: {
      memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms',
    },
    upgrade: reindexLexicalTerms(),
  },
  {
    // v3: the undo log of imports in progress (atomic imports, crash recovery at open).
    version: 3,
    stores: { importUndo: '[importId+id], importId' },
  },
  {
    // v4: incoming links by index (`*linkTargets`) and the conflict review queue.
    version: 4,
    stores: {
      memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms, *linkTargets',
      conflicts: 'id, status, newId, oldId',
    },
    async upgrade(tx) {
      await tx
        .table('memories')
        .toCollection()
        .modify((row: MemoryRow) => {
          row.linkTargets = [...new Set((row.links ?? []).map((l) => l.to))];
        });
    },
  },
  {
    // v5: the journal, written in the same transaction as each mutation.
    version: 5,
    stores: { journal: '++seq, ts, id, group, op' },
  },
  {
    // v6: the trash (decay pruning moves memories here instead of deleting them).
    version: 6,
    stores: { trash: '++seq, id, deletedAt' },
  },
  {
    // v7: a compound (createdAt, id) index: listRecent pages by a keyset cursor without skipping ties.
    version: 7,
    stores: { memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms, *linkTargets, [createdAt+id]' },
  },
  {
    // v8: a polarity index: semantic recall asks whether any memory has positive polarity (the
    // only thing that can lift a memory above its cosine) before reading fewer candidate rows.
    version: 8,
    stores: { memories: 'id, &label, createdAt, type, *tags, supersededBy, contentHash, *terms, *linkTargets, [createdAt+id], polarity' },
  },
  {
    // v9: the int8 HNSW index keeps its snapshot here as blocks (adapters/index-blocks-idb.ts),
    // keyed by number, plus a 'manifest' row; out-of-line keys, no indexes. Nothing to migrate.
    version: 9,
    stores: { indexBlocks: '' },
  },
  {
    // v10: lexical terms without stop words, lightly stemmed, numbers whole (issue #14): every
    // row's `terms`/`termCounts`/`termLength` and the corpus statistics are derived again, so a
    // store written before keeps matching queries tokenised the new way.
    version: 10,
    stores: {},
    upgrade: reindexLexicalTerms(),
  },
  {
    // v11: vectors stored as binary16 (768 bytes a 384-d vector instead of 1,536), and the
    // vector rows lose the memory id nothing read (issue #19). The staged, trash and import-undo
    // vectors are rewritten too. One versionchange transaction: a store is upgraded whole or
    // not at all (a tab closed halfway leaves it at v10, and the next open starts again).
    //
    // And three indexes of the memories table cost less: an index entry carries the row's primary
    // key (a 36-character id), ~100 bytes each on disk in Chromium, so `createdAt` goes (the
    // `[createdAt+id]` index orders by it too), and `supersededBy`/`polarity` become the sparse
    // `superseded`/`positive`, which only superseded / positive memories enter. The journal's
    // `op` index, which nothing queries, goes too.
    version: 11,
    stores: {
      memories: 'id, &label, type, *tags, contentHash, *terms, *linkTargets, [createdAt+id], superseded, positive',
      journal: '++seq, ts, id, group',
    },
    async upgrade(tx, progress) {
      const tables = ['memories', 'vectors', 'staged', 'trash', 'importUndo'] as const;
      const counts = await Promise.all(tables.map((t) => tx.table(t).count()));
      const total = counts.reduce((a, b) => a + b, 0);
      let done = 0;
      const step = Math.max(1, Math.floor(total / 100));
      if (total > 0) progress(0, total);
      const advance = (): void => {
        done += 1;
        if (done % step === 0) progress(done, total);
      };
      await tx
        .table('memories')
        .toCollection()
        .modify((row: MemoryRow) => {
          advance();
          // Dropping an index needs no row written; only the few rows entering a sparse one are.
          const sparse = sparseFields(row);
          if (Object.keys(sparse).length === 0) return false;
          Object.assign(row, sparse);
          return true;
        });
      for (const table of tables.slice(1)) await halveVectors(tx, table, table === 'vectors', advance);
      if (total > 0 && done % step !== 0) progress(total, total);
    },
  },
];
export const SCHEMA_VERSION = SCHEMA_VERSIONS[SCHEMA_VERSIONS.length - 1]!.version;

/** Setting keys (rows of the meta table) of the journal horizon and the store's canary. */
const HORIZON_KEY = 'journalHorizon';
/** Setting keys of import leases, one per import in progress: `importLease:<importId>`. */
const LEASE_SETTING = 'importLease:';
const CANARY_KEY = 'canary';

/** The IndexedDB database name of a store. */
export function databaseName(store: string): string {
  return `houkai-web:${store}`;
}

/** Where the store's database lives (see `IndexedDbOptions`), and who hears how a schema upgrade is going. */
export interface DexieStorageOptions extends IndexedDbOptions {
  /** Rows rewritten of the total by a schema upgrade at open (v11 rewrites every vector). */
  onUpgradeProgress?: (done: number, total: number) => void;
}

class MemoryDatabase extends Dexie {
  meta!: Table<MetaRow, string>;
  memories!: Table<MemoryRow, string>;
  vectors!: Table<VectorRow, number>;
  tombstones!: Table<TombstoneRow, number>;
  staged!: Table<StagedRow, [string, string]>;
  importUndo!: Table<ImportUndoRow, [string, string]>;
  conflicts!: Table<PendingConflict, string>;
  journal!: Table<JournalEntry, number>;
  trash!: Table<TrashRow, number>;

  constructor(name: string, options: DexieStorageOptions) {
    super(name, {
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
    });
    const progress = options.onUpgradeProgress ?? (() => undefined);
    for (const { version, stores, upgrade } of SCHEMA_VERSIONS) {
      const declared = this.version(version).stores(stores);
      // The first version creates; every later one runs its own step, then records itself.
      if (version > 1) declared.upgrade((tx) => upgradeTo(version, tx, upgrade, progress));
    }
  }
}

/** Terms whose document frequency the lexical candidate search keeps between calls. */
const DF_CACHE_TERMS = 50_000;

/** `keys.length` lookups on one index in one read-only transaction, in key order (undefined when absent). */
function indexGets<T>(idb: IDBDatabase, store: string, index: string, keys: readonly IDBValidKey[]): Promise<(T | undefined)[]> {
  return new Promise((resolve, reject) => {
    const out = new Array<T | undefined>(keys.length);
    if (keys.length === 0) return resolve(out);
    const tx = idb.transaction(store, 'readonly');
    const source = tx.objectStore(store).index(index);
    let pending = keys.length;
    keys.forEach((key, i) => {
      const request = source.get(key);
      request.onsuccess = () => {
        out[i] = request.result as T | undefined;
        if (--pending === 0) resolve(out);
      };
    });
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new DOMException('The read was aborted', 'AbortError'));
  });
}

function strip(row: MemoryRow): Memory {
  const { label: _label, terms: _terms, termCounts: _counts, termLength: _length, linkTargets: _targets, pinMoved: _pinMoved, superseded: _s, positive: _p, ...memory } = row;
  return memory;
}


export async function openDexieStorage(store: string, options: DexieStorageOptions = {}): Promise<MemoryStorage> {
  const db = new MemoryDatabase(databaseName(store), options);
  try {
    await db.open();
  } catch (error) {
    throw mapStorageError(error, 'open');
  }

  /** Document frequencies by term, valid for one state of the lexical statistics (see lexicalCandidates). */
  let dfCache: { key: string; df: Map<string, number> } = { key: '', df: new Map() };

  /**
   * Memory rows by label (undefined when absent). Recall's hot path, so it talks to IndexedDB
   * directly: Dexie's get({ label }) opens a cursor per key and cost 2.6× as much (40 lookups:
   * 2.5 ms against 0.95 ms at 100k rows). Through Dexie while it is closed (it reopens itself).
   */
  function rowsByLabels(labels: readonly number[]): Promise<(MemoryRow | undefined)[]> {
    return db.isOpen()
      ? indexGets<MemoryRow>(db.backendDB(), 'memories', 'label', labels)
      : db.transaction('r', db.memories, () => Promise.all(labels.map((label) => db.memories.get({ label }))));
  }

  async function run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw mapStorageError(error, operation);
    }
  }

  async function bumpGeneration(labelsNeeded: number, lexical = { docs: 0, length: 0 }): Promise<{ meta: StoreMeta; firstLabel: number }> {
    const row = await db.meta.get('store');
    if (!row) throw new MemoryError('STORAGE_FAILURE', 'The store has no metadata row');
    const meta: StoreMeta = {
      ...row.value,
      generation: row.value.generation + 1,
      nextLabel: row.value.nextLabel + labelsNeeded,
      lexicalDocs: (row.value.lexicalDocs ?? 0) + lexical.docs,
      lexicalLength: (row.value.lexicalLength ?? 0) + lexical.length,
    };
    await db.meta.put({ key: 'store', value: meta });
    return { meta, firstLabel: row.value.nextLabel };
  }

  async function readSetting<T>(key: string): Promise<T | undefined> {
    return ((await db.meta.get(`setting:${key}`)) as unknown as SettingRow | undefined)?.value as T | undefined;
  }

  async function writeSetting(key: string, value: unknown): Promise<void> {
    await db.meta.put({ key: `setting:${key}`, value } as unknown as MetaRow);
  }

  /** An import's undo rows as a primary-key range: deleting it is one range delete, not one per row. */
  function undoRange(importId: string) {
    return db.importUndo.where('[importId+id]').between([importId, Dexie.minKey], [importId, Dexie.maxKey], true, true);
  }

  /** The ids of the imports holding a lease, inside the caller's transaction (it must include `meta`). */
  async function leasedImports(): Promise<string[]> {
    const prefix = `setting:${LEASE_SETTING}`;
    return (await db.meta.where('key').startsWith(prefix).primaryKeys()).map((key) => String(key).slice(prefix.length));
  }

  /**
   * Refuses, inside the caller's transaction (it must include `meta` and `importUndo`), a write
   * to a memory that an import in progress holds (it inserted or overwrote it): that import's
   * rollback would put the row back as it was and lose the write. BUSY until the import ends.
   */
  async function refuseHeld(ids: readonly string[], except?: string): Promise<void> {
    if (ids.length === 0) return;
    for (const importId of await leasedImports()) {
      if (importId === except) continue;
      const held = await db.importUndo.bulkGet(ids.map((id) => [importId, id] as [string, string]));
      const at = held.findIndex((row) => row !== undefined);
      if (at !== -1) {
        throw new MemoryError('BUSY', `Memory ${JSON.stringify(ids[at])} is being written by an import in progress; try again when it has finished`, {
          id: ids[at],
          importId,
        });
      }
    }
  }

  /** The import's lease inside the caller's transaction, or ABORTED: another owner rolled it back. */
  async function requireLease(importId: string): Promise<ImportLease> {
    const lease = await readSetting<ImportLease>(`${LEASE_SETTING}${importId}`);
    if (!lease) {
      throw new MemoryError('ABORTED', 'This import was rolled back by another owner of the store (its lease had lapsed); nothing of it was kept', {
        reason: 'lease-lost',
        importId,
      });
    }
    return lease;
  }

  /** Appends journal entries inside the caller's transaction (the journal and the data never disagree). */
  async function journal(ctx: JournalContext | undefined, entries: { id: string; before: Memory | null; after: Memory | null; op?: string }[]): Promise<void> {
    if (!ctx || entries.length === 0) return;
    await db.journal.bulkAdd(
      entries.map(compactEntry).map((e) => ({
        ts: ctx.ts,
        op: e.op ?? ctx.op,
        actor: ctx.actor,
        id: e.id,
        before: e.before,
        after: e.after,
        ...(e.links ? { links: e.links } : {}),
        meta: ctx.meta ?? {},
        group: ctx.group,
      })),
    );
  }

  const storage: MemoryStorage = {
    readMeta: () => run('readMeta', async () => (await db.meta.get('store'))?.value),

    initMeta: (meta) =>
      run('initMeta', () =>
        db.transaction('rw', db.meta, async () => {
          const existing = await db.meta.get('store');
          if (existing) return existing.value;
          await db.meta.put({ key: 'store', value: meta });
          return meta;
        }),
      ),

    insert: (memories, vectors, ctx) =>
      run('insert', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.journal, db.importUndo], async () => {
          const rows = memories.map((m) => ({ ...m, ...derivedFields(m), label: 0 }));
          const length = rows.reduce((sum, r) => sum + r.termLength, 0);
          // Side by side: a refusal aborts the transaction, and everything in it with it.
          const [{ meta, firstLabel }] = await Promise.all([bumpGeneration(memories.length, { docs: memories.length, length }), refuseHeld(memories.map((m) => m.id))]);
          const labels = memories.map((_, i) => firstLabel + i);
          rows.forEach((row, i) => (row.label = labels[i]!));
          await db.memories.bulkAdd(rows);
          const stored = vectors.map(storedVector);
          await db.vectors.bulkAdd(stored.map((vector, i) => ({ label: labels[i]!, vector, gen: meta.generation })));
          await journal(ctx, memories.map((m) => ({ id: m.id, before: null, after: m })));
          // The index gets what a rebuild from storage would give it: the stored precision.
          return { labels, added: labels.map((label, i) => ({ label, vector: loadedVector(stored[i]!) })), removedLabels: [], generation: meta.generation };
        }),
      ),

    replace: (expected, next, vector, ctx) =>
      run('replace', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.journal, db.importUndo], async () => {
          const [current] = await Promise.all([db.memories.get(expected.id), refuseHeld([expected.id])]);
          if (!current || !sameState(strip(current), expected)) return null;
          await journal(ctx, [{ id: next.id, before: strip(current), after: next }]);
          if (!vector) {
            await db.memories.put({ ...next, ...derivedFields(next), label: current.label, ...(current.pinMoved ? { pinMoved: true } : {}) });
            const meta = (await db.meta.get('store'))!.value;
            return { label: current.label, added: [], removedLabels: [], generation: meta.generation };
          }
          const derived = derivedFields(next);
          const { meta, firstLabel } = await bumpGeneration(1, { docs: 0, length: derived.termLength - (current.termLength ?? 0) });
          await db.memories.put({ ...next, ...derived, label: firstLabel });
          const stored = storedVector(vector);
          await db.vectors.delete(current.label);
          await db.vectors.add({ label: firstLabel, vector: stored, gen: meta.generation });
          await db.tombstones.put({ label: current.label, gen: meta.generation });
          return { label: firstLabel, removedLabel: current.label, added: [{ label: firstLabel, vector: loadedVector(stored) }], removedLabels: [current.label], generation: meta.generation };
        }),
      ),

    remove: (id, ctx) =>
      run('remove', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.journal, db.importUndo], async () => {
          const [current] = await Promise.all([db.memories.get(id), refuseHeld([id])]);
          if (!current) return undefined;
          await journal(ctx, [{ id, before: strip(current), after: null }]);
          const { meta } = await bumpGeneration(0, { docs: -1, length: -(current.termLength ?? 0) });
          await db.memories.delete(id);
          await db.vectors.delete(current.label);
          await db.tombstones.put({ label: current.label, gen: meta.generation });
          return { memory: strip(current), label: current.label, added: [], removedLabels: [current.label], generation: meta.generation };
        }),
      ),

    touch: (ids, now) =>
      run('touch', () =>
        db.transaction('rw', db.memories, async () => {
          const rows = await db.memories.bulkGet(ids);
          const updated: MemoryRow[] = [];
          for (const row of rows) {
            if (!row) continue;
            updated.push({ ...row, lastAccessed: now, accessCount: row.accessCount + 1 });
          }
          await db.memories.bulkPut(updated);
          return updated.map(strip);
        }),
      ),

    get: (id) =>
      run('get', async () => {
        const row = await db.memories.get(id);
        return row ? strip(row) : undefined;
      }),

    getByLabels: (labels) =>
      // One unique-index lookup per label (not anyOf, whose cursor walk is linear in
      // fake-indexeddb; not through the vectors table, whose rows carry every float).
      run('getByLabels', async () => {
        const rows = await rowsByLabels(labels);
        const out = new Map<number, Memory>();
        for (const row of rows) if (row) out.set(row.label, strip(row));
        return out;
      }),

    list: (query: ListQuery) =>
      run('list', async () => {
        if (query.limit <= 0) return [];
        // Newest first by (createdAt, id), so a keyset cursor never skips rows sharing a time.
        const base =
          query.before === undefined
            ? db.memories.orderBy('[createdAt+id]')
            : query.beforeId === undefined
              ? db.memories.where('[createdAt+id]').below([query.before, Dexie.minKey])
              : db.memories.where('[createdAt+id]').below([query.before, query.beforeId]);
        const rows = await base
          .reverse()
          .filter(
            (m) =>
              (query.includeSuperseded || m.supersededBy === '') &&
              (query.includeExpired || m.expiresAt <= 0 || m.expiresAt > query.now),
          )
          .limit(query.limit)
          .toArray();
        return rows.map(strip);
      }),

    count: () => run('count', () => db.memories.count()),

    counts: () =>
      run('counts', () =>
        db.transaction('r', db.memories, async (): Promise<StoredCounts> => {
          const total = await db.memories.count();
          const superseded = await db.memories.where('superseded').above('').count();
          const byType: Record<string, number> = {};
          for (const type of MEMORY_TYPES) byType[type] = await db.memories.where('type').equals(type).count();
          return { total, superseded, byType };
        }),
      ),

    aggregate: ({ includeSuperseded, createdEdges }) =>
      run('aggregate', () =>
        db.transaction('r', db.memories, async () => {
          // Key cursors only: the tags index (multi-entry) and the (createdAt, id) index.
          const skip = includeSuperseded ? new Set<string>() : new Set(await db.memories.where('superseded').above('').primaryKeys());
          const tagCounts = new Map<string, number>();
          await db.memories.orderBy('tags').eachKey((tag, cursor) => {
            if (!skip.has(cursor.primaryKey as string)) tagCounts.set(tag as string, (tagCounts.get(tag as string) ?? 0) + 1);
          });
          const created = new Array<number>(Math.max(0, createdEdges.length - 1)).fill(0);
          if (created.length) {
            const first = createdEdges[0]!;
            const last = createdEdges[createdEdges.length - 1]!;
            let bucket = 0;
            await db.memories
              .where('[createdAt+id]')
              .between([first, Dexie.minKey], [last, Dexie.minKey], true, false)
              .eachKey((key) => {
                const [createdAt, id] = key as [number, string];
                if (skip.has(id)) return;
                while (createdAt >= createdEdges[bucket + 1]!) bucket++; // keys arrive in ascending order
                created[bucket]!++;
              });
          }
          const total = await db.memories.count();
          return { tagCounts, created, counted: total - skip.size };
        }),
      ),

    countExpired: (now) =>
      run('countExpired', () => db.memories.filter((r) => !r.supersededBy && r.expiresAt > 0 && r.expiresAt <= now).count()),

    vectorCount: () => run('vectorCount', () => db.vectors.count()),

    scanVectors: (visit, options = {}) =>
      run('scanVectors', async () => {
        const batchSize = options.batchSize ?? 2000;
        const after = options.afterGeneration;
        if (after !== undefined) {
          const rows = await db.vectors.where('gen').above(after).toArray();
          rows.sort((a, b) => a.label - b.label);
          for (let i = 0; i < rows.length; i += batchSize) {
            const batch = rows.slice(i, i + batchSize);
            await visit(batch.map((r) => r.label), batch.map((r) => loadedVector(r.vector)));
          }
          return;
        }
        // Keyset pagination keeps memory bounded and each read transaction short.
        let lastLabel = -1;
        for (;;) {
          const batch = await db.vectors.where('label').above(lastLabel).limit(batchSize).toArray();
          if (batch.length === 0) break;
          await visit(batch.map((r) => r.label), batch.map((r) => loadedVector(r.vector)));
          lastLabel = batch[batch.length - 1]!.label;
        }
      }),

    tombstonesAfter: (afterGeneration) =>
      run('tombstonesAfter', async () =>
        (await db.tombstones.where('gen').above(afterGeneration).toArray()).map((t) => t.label),
      ),

    pruneTombstones: (upToGeneration) =>
      run('pruneTombstones', async () => {
        await db.tombstones.where('gen').belowOrEqual(upToGeneration).delete();
      }),

    stageVectors: (entries, embedderId) =>
      run('stageVectors', async () => {
        await db.staged.bulkPut(entries.map((e) => ({ embedderId, ...e, vector: storedVector(e.vector) })));
      }),

    stagedIds: (embedderId) =>
      run('stagedIds', async () => {
        const out = new Map<string, string>();
        await db.staged
          .where('embedderId')
          .equals(embedderId)
          .each((row) => {
            out.set(row.id, row.contentHash);
          });
        return out;
      }),

    commitStaged: (embedderId, dim, ctx) =>
      run('commitStaged', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.staged, db.journal], async () => {
          const importing = await leasedImports();
          if (importing.length) {
            // A rollback would bring back rows with vectors of the old embedder.
            throw new MemoryError('BUSY', 'An import is in progress; re-embed when it has finished', { importId: importing[0] });
          }
          await journal(ctx, [{ id: '*', before: null, after: null }]);
          const row = await db.meta.get('store');
          if (!row) throw new MemoryError('STORAGE_FAILURE', 'The store has no metadata row');
          const memories = await db.memories.toArray();
          const staged = new Map<string, StagedRow>();
          await db.staged
            .where('embedderId')
            .equals(embedderId)
            .each((s) => {
              staged.set(s.id, s);
            });
          const missing = memories.filter((m) => staged.get(m.id)?.contentHash !== m.contentHash);
          if (missing.length > 0) {
            throw new MemoryError('EMBEDDER_MISMATCH', `${missing.length} memories have no staged vector`, {
              missing: missing.slice(0, 10).map((m) => m.id),
            });
          }
          const generation = row.value.generation + 1;
          let label = row.value.nextLabel;
          await db.vectors.clear();
          await db.tombstones.clear();
          const rows: MemoryRow[] = [];
          const vectors: VectorRow[] = [];
          for (const memory of memories) {
            rows.push({ ...memory, label });
            vectors.push({ label, vector: staged.get(memory.id)!.vector, gen: generation });
            label += 1;
          }
          await db.memories.bulkPut(rows);
          await db.vectors.bulkAdd(vectors);
          await db.staged.clear();
          await db.meta.put({
            key: 'store',
            value: { ...row.value, embedderId, dim, generation, nextLabel: label },
          });
          return { generation };
        }),
      ),

    ids: () =>
      run('ids', async () => {
        const out: { id: string; text: string; contentHash: string }[] = [];
        await db.memories.each((m) => {
          out.push({ id: m.id, text: m.text, contentHash: m.contentHash });
        });
        return out;
      }),

    lexicalStats: () =>
      run('lexicalStats', async () => {
        const meta = (await db.meta.get('store'))?.value;
        const documents = meta?.lexicalDocs ?? 0;
        return { documents, averageLength: documents > 0 ? (meta?.lexicalLength ?? 0) / documents : 0 };
      }),

    lexicalCandidates: (terms, limit) =>
      run('lexicalCandidates', () =>
        db.transaction('r', [db.meta, db.memories], async () => {
          const unique = [...new Set(terms)];
          // Document frequencies: counting an index range is linear in the term's postings, so
          // the counts are kept until the lexical statistics change (any text change bumps the
          // generation and the document/length totals in the same transaction).
          const meta = (await db.meta.get('store'))?.value;
          const documents = meta?.lexicalDocs ?? 0;
          const key = `${meta?.generation ?? 0}:${documents}:${meta?.lexicalLength ?? 0}`;
          if (dfCache.key !== key || dfCache.df.size > DF_CACHE_TERMS) dfCache = { key, df: new Map() };
          const cache = dfCache.df;
          await Promise.all(
            unique.filter((t) => !cache.has(t)).map(async (t) => cache.set(t, await db.memories.where('terms').equals(t).count())),
          );
          const df = new Map(unique.map((t) => [t, cache.get(t) ?? 0] as const));
          // Candidates from the postings, keys only (core/domain/lexical-index.ts); only the best rows are read.
          const best = await nominateCandidates(df, documents, limit, (term, max) => db.memories.where('terms').equals(term).limit(max).primaryKeys());
          const candidates: LexicalCandidate[] = [];
          for (const row of await db.memories.bulkGet(best)) {
            if (row) candidates.push({ memory: strip(row), label: row.label, terms: row.terms, termCounts: row.termCounts, termLength: row.termLength });
          }
          return { candidates, documentFrequencies: df };
        }),
      ),

    // An equality lookup: a range like above(0) walks the whole index in fake-indexeddb (11 ms at 100k, against 0.06 ms).
    hasPositivePolarity: () => run('hasPositivePolarity', async () => (await db.memories.where('positive').equals(1).limit(1).primaryKeys()).length > 0),

    lexicalTermsOf: (labels) =>
      run('lexicalTermsOf', async () => {
        const rows = await rowsByLabels(labels);
        const out = new Map<number, { terms: string[]; termCounts: number[]; termLength: number }>();
        for (const row of rows) if (row) out.set(row.label, { terms: row.terms, termCounts: row.termCounts, termLength: row.termLength });
        return out;
      }),

    vectorsOf: (labels) =>
      run('vectorsOf', async () => {
        const rows = await db.vectors.bulkGet(labels);
        const out = new Map<number, Float32Array>();
        for (const row of rows) if (row) out.set(row.label, loadedVector(row.vector));
        return out;
      }),

    exists: (ids) =>
      run('exists', async () => (await db.memories.bulkGet(ids)).map((row) => row !== undefined)),

    textsOf: (ids) =>
      run('textsOf', async () => (await db.memories.bulkGet(ids)).map((row) => row?.text)),

    async *pagesByCreated(batchSize = 500) {
      // The ids in createdAt order are one index read (small even at 100k); rows and vectors
      // then come a page at a time by primary key, so memory stays bounded by the page.
      const ids = await run('pagesByCreated', () => db.memories.orderBy('[createdAt+id]').primaryKeys());
      for (let i = 0; i < ids.length; i += batchSize) {
        const page = await run('pagesByCreated', () =>
          db.transaction('r', [db.memories, db.vectors], async () => {
            const rows = (await db.memories.bulkGet(ids.slice(i, i + batchSize))).filter((r): r is MemoryRow => r !== undefined);
            const vectors = await db.vectors.bulkGet(rows.map((r) => r.label));
            return rows.map((r, j) => {
              const stored = vectors[j]?.vector;
              return { memory: strip(r), vector: stored && loadedVector(stored) };
            });
          }),
        );
        if (page.length) yield page;
      }
    },

    importBatch: (importId, writes, ctx) =>
      run('importBatch', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.importUndo, db.journal], async () => {
          await requireLease(importId);
          await refuseHeld(writes.map((w) => w.memory.id), importId);
          const existing = await db.memories.bulkGet(writes.map((w) => w.memory.id));
          const undo = await db.importUndo.bulkGet(writes.map((w) => [importId, w.memory.id] as [string, string]));
          const removed: MemoryRow[] = [];
          const seen = new Map<string, MemoryRow | undefined>();
          const rows = writes.map((w) => ({ ...w.memory, ...derivedFields(w.memory), label: 0 }));
          let docDelta = 0;
          let lengthDelta = 0;
          const undoRows: ImportUndoRow[] = [];
          for (const [i, w] of writes.entries()) {
            const id = w.memory.id;
            const current = seen.has(id) ? seen.get(id) : existing[i];
            if (current) {
              removed.push(current);
              docDelta -= 1;
              lengthDelta -= current.termLength ?? 0;
            }
            // The first change to an id in this import keeps what it replaced, for rollback.
            if (!undo[i] && !seen.has(id)) {
              undoRows.push(current ? { importId, id, kind: 'overwritten', row: current } : { importId, id, kind: 'inserted' });
            }
            seen.set(id, rows[i]);
            docDelta += 1;
            lengthDelta += rows[i]!.termLength;
          }
          // Overwritten rows keep their vector in the undo log too (one read for the batch).
          const replaced = undoRows.filter((u) => u.row);
          if (replaced.length) {
            const vectors = await db.vectors.bulkGet(replaced.map((u) => u.row!.label));
            replaced.forEach((u, i) => {
              const vector = vectors[i]?.vector;
              if (vector) u.vector = vector;
            });
          }
          if (undoRows.length) await db.importUndo.bulkPut(undoRows);
          const { meta, firstLabel } = await bumpGeneration(rows.length, { docs: docDelta, length: lengthDelta });
          rows.forEach((row, i) => (row.label = firstLabel + i));
          const removedLabels = removed.map((r) => r.label);
          await db.memories.bulkDelete([...new Set(removed.map((r) => r.id))]);
          await db.vectors.bulkDelete(removedLabels);
          await db.tombstones.bulkPut(removedLabels.map((label) => ({ label, gen: meta.generation })));
          // Later rows with the same id replace earlier ones (apply in order).
          const last = new Map(rows.map((r) => [r.id, r]));
          const kept = rows.filter((r) => last.get(r.id) === r);
          const dropped = rows.filter((r) => last.get(r.id) !== r).map((r) => r.label);
          await journal(ctx, writes.map((w, i) => ({ id: w.memory.id, before: existing[i] ? strip(existing[i]!) : null, after: w.memory })));
          const vectorOf = new Map(rows.map((r, i) => [r, storedVector(writes[i]!.vector)]));
          await db.memories.bulkPut(kept);
          await db.vectors.bulkPut(kept.map((r) => ({ label: r.label, vector: vectorOf.get(r)!, gen: meta.generation })));
          if (dropped.length) await db.tombstones.bulkPut(dropped.map((label) => ({ label, gen: meta.generation })));
          return {
            added: kept.map((r) => ({ label: r.label, vector: loadedVector(vectorOf.get(r)!) })),
            removedLabels,
            generation: meta.generation,
          };
        }),
      ),

    rollbackImport: (importId) =>
      run('rollbackImport', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.importUndo, db.journal], async () => {
          // The import's journal entries share its id as their group: a rolled-back import never happened.
          await db.journal.where('group').equals(importId).delete();
          const entries = await db.importUndo.where('importId').equals(importId).toArray();
          const current = await db.memories.bulkGet(entries.map((e) => e.id));
          const removed = current.filter((r): r is MemoryRow => r !== undefined);
          const restored = entries.filter((e) => e.kind === 'overwritten' && e.row);
          const lengthDelta =
            restored.reduce((s, e) => s + (e.row!.termLength ?? 0), 0) - removed.reduce((s, r) => s + (r.termLength ?? 0), 0);
          const { meta, firstLabel } = await bumpGeneration(restored.length, { docs: restored.length - removed.length, length: lengthDelta });
          const removedLabels = removed.map((r) => r.label);
          await db.memories.bulkDelete(removed.map((r) => r.id));
          await db.vectors.bulkDelete(removedLabels);
          await db.tombstones.bulkPut(removedLabels.map((label) => ({ label, gen: meta.generation })));
          const added: { label: number; vector: Float32Array }[] = [];
          for (const [i, e] of restored.entries()) {
            const label = firstLabel + i;
            // The undo log's row may predate this schema: its derived fields are derived again.
            await db.memories.put({ ...e.row!, ...derivedFields(strip(e.row!)), label });
            if (e.vector) {
              await db.vectors.put({ label, vector: e.vector, gen: meta.generation });
              added.push({ label, vector: loadedVector(e.vector) });
            }
          }
          await undoRange(importId).delete();
          await db.meta.delete(`setting:${LEASE_SETTING}${importId}`);
          return { added, removedLabels, generation: meta.generation };
        }),
      ),

    finishImport: (importId) =>
      run('finishImport', () =>
        db.transaction('rw', [db.meta, db.importUndo], async () => {
          await requireLease(importId);
          await undoRange(importId).delete();
          await db.meta.delete(`setting:${LEASE_SETTING}${importId}`);
        }),
      ),

    beginImport: (lease) => run('beginImport', () => writeSetting(`${LEASE_SETTING}${lease.importId}`, lease)),

    renewImport: (importId, heartbeatAt) =>
      run('renewImport', () =>
        db.transaction('rw', db.meta, async () => {
          const lease = await readSetting<ImportLease>(`${LEASE_SETTING}${importId}`);
          if (!lease) return false;
          await writeSetting(`${LEASE_SETTING}${importId}`, { ...lease, heartbeatAt: Math.max(lease.heartbeatAt, heartbeatAt) });
          return true;
        }),
      ),

    pendingImports: () =>
      run('pendingImports', () =>
        db.transaction('r', [db.meta, db.importUndo], async () => {
          const ids = new Set((await db.importUndo.orderBy('importId').uniqueKeys()).map(String));
          for (const id of await leasedImports()) ids.add(id);
          const leases = await Promise.all([...ids].map(async (importId) => ({ importId, lease: (await readSetting<ImportLease>(`${LEASE_SETTING}${importId}`)) ?? null })));
          return leases;
        }),
      ),

    getMany: (ids) =>
      run('getMany', async () => {
        const rows = await db.memories.bulkGet(ids);
        return new Map(rows.filter((r): r is MemoryRow => r !== undefined).map((r) => [r.id, strip(r)]));
      }),

    labelsOf: (ids) => run('labelsOf', async () => (await db.memories.bulkGet(ids)).map((r) => r?.label)),

    incoming: (id) =>
      run('incoming', async () => {
        const rows = await db.memories.where('linkTargets').equals(id).toArray();
        const out: { from: string; rel: string }[] = [];
        for (const row of rows) for (const link of row.links) if (link.to === id) out.push({ from: row.id, rel: link.rel });
        return out;
      }),

    incomingMany: (ids) =>
      run('incomingMany', async () => {
        const wanted = new Set(ids);
        const out = new Map<string, { from: string; rel: string }[]>();
        if (ids.length === 0) return out;
        for (const row of await db.memories.where('linkTargets').anyOf(ids).toArray()) {
          for (const link of row.links) if (wanted.has(link.to)) out.set(link.to, [...(out.get(link.to) ?? []), { from: row.id, rel: link.rel }]);
        }
        return out;
      }),

    pinMoved: (id) => run('pinMoved', async () => (await db.memories.get(id))?.pinMoved === true),

    applyGraphChanges: (changes: GraphChanges, ctx) =>
      run('applyGraphChanges', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.conflicts, db.journal, db.importUndo], async () => {
          const [current] = await Promise.all([
            db.memories.bulkGet((changes.put ?? []).map((m) => m.id)),
            refuseHeld([...(changes.put ?? []).map((m) => m.id), ...(changes.forget ?? [])]),
          ]);
          const missing = (changes.put ?? []).filter((_, i) => !current[i]).map((m) => m.id);
          if (missing.length) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(missing[0])}`, { id: missing[0] });
          for (const [i, memory] of (changes.put ?? []).entries()) {
            const row = current[i]!;
            if (row.text !== memory.text) throw new MemoryError('INVALID_ARGUMENT', 'Graph changes cannot change text', { id: memory.id });
            await journal(ctx, [{ id: memory.id, before: strip(row), after: memory }]);
            const pinMoved = changes.pinMoved?.[memory.id] ?? row.pinMoved;
            await db.memories.put({ ...memory, ...derivedFields(memory), label: row.label, ...(pinMoved ? { pinMoved: true } : {}) });
          }
          let removedLabels: number[] = [];
          let generation = (await db.meta.get('store'))!.value.generation;
          if (changes.forget?.length) {
            const rows = (await db.memories.bulkGet(changes.forget)).filter((r): r is MemoryRow => r !== undefined);
            await journal(ctx, rows.map((r) => ({ id: r.id, before: strip(r), after: null, op: 'forget' })));
            const { meta } = await bumpGeneration(0, { docs: -rows.length, length: -rows.reduce((s, r) => s + (r.termLength ?? 0), 0) });
            generation = meta.generation;
            removedLabels = rows.map((r) => r.label);
            await db.memories.bulkDelete(rows.map((r) => r.id));
            await db.vectors.bulkDelete(removedLabels);
            await db.tombstones.bulkPut(removedLabels.map((label) => ({ label, gen: generation })));
          }
          if (changes.conflicts?.length) await db.conflicts.bulkPut(changes.conflicts);
          return { added: [], removedLabels, generation };
        }),
      ),

    listConflicts: (status) =>
      run('listConflicts', async () =>
        (status ? await db.conflicts.where('status').equals(status).toArray() : await db.conflicts.toArray()).sort((a, b) => a.createdAt - b.createdAt),
      ),

    getConflict: (id) => run('getConflict', () => db.conflicts.get(id)),

    journalRead: (query) =>
      run('journalRead', async () => {
        let rows: JournalEntry[];
        if (query.seq !== undefined) rows = [await db.journal.get(query.seq)].filter((e): e is JournalEntry => e !== undefined);
        else if (query.id !== undefined) rows = await db.journal.where('id').equals(query.id).toArray();
        else if (query.group !== undefined) rows = await db.journal.where('group').equals(query.group).toArray();
        else if (query.untilTs !== undefined) rows = await db.journal.where('ts').belowOrEqual(query.untilTs).toArray();
        else if (query.afterTs !== undefined) rows = await db.journal.where('ts').above(query.afterTs).toArray();
        else if (query.newest !== undefined) rows = (await db.journal.orderBy('seq').reverse().limit(query.newest).toArray()).reverse();
        else rows = await db.journal.orderBy('seq').toArray();
        return rows.sort((a, b) => a.seq! - b.seq!);
      }),

    journalAfter: (afterSeq, limit) => run('journalAfter', () => db.journal.where('seq').above(afterSeq).limit(limit).toArray()),

    journalKeys: (query) =>
      run('journalKeys', async () => {
        if ('group' in query) return (await db.journal.where('group').equals(query.group).primaryKeys()).sort((a, b) => b - a);
        const range = query.belowSeq === undefined ? db.journal.orderBy('seq') : db.journal.where('seq').below(query.belowSeq);
        return range.reverse().limit(query.limit).primaryKeys();
      }),

    journalAppend: (ctx, entries) =>
      run('journalAppend', () => db.transaction('rw', db.journal, () => journal(ctx, entries))),

    journalCompact: (query, ctx) =>
      run('journalCompact', () =>
        db.transaction('rw', [db.journal, db.meta], async () => {
          const previous = await readSetting<JournalHorizon>(HORIZON_KEY);
          // The cut: below the oldest of the newest `keepLast` entries (compactions' own entries
          // not counted), and below the oldest entry written at or after `olderThanTs` (seq order,
          // so a clock that went back cannot punch holes).
          let cut = Number.POSITIVE_INFINITY;
          if (query.keepLast > 0) {
            let counted = 0;
            let oldestKept: number | undefined;
            await db.journal
              .orderBy('seq')
              .reverse()
              .until(() => counted >= query.keepLast)
              .each((e) => {
                if (e.op === 'compact') return;
                counted += 1;
                oldestKept = e.seq;
              });
            if (counted < query.keepLast || oldestKept === undefined) return { removed: 0, horizon: previous ?? null };
            cut = oldestKept;
          }
          for (const seq of await db.journal.where('ts').aboveOrEqual(query.olderThanTs).primaryKeys()) cut = Math.min(cut, seq);
          const old: { seq: number; group: string; ts: number }[] = [];
          await db.journal.where('seq').below(cut).each((e) => void old.push({ seq: e.seq!, group: e.group, ts: e.ts }));
          // A call whose entries straddle the cut stays whole, so undoing it still works.
          const straddling = new Set<string>();
          for (const group of new Set(old.map((e) => e.group))) {
            const [newest] = await db.journal.where('group').equals(group).reverse().limit(1).primaryKeys();
            if (newest !== undefined && newest >= cut) straddling.add(group);
          }
          const dropped = old.filter((e) => !straddling.has(e.group));
          if (dropped.length === 0) return { removed: 0, horizon: previous ?? null };
          await db.journal.bulkDelete(dropped.map((e) => e.seq));
          const horizon: JournalHorizon = {
            ts: dropped.reduce((max, e) => Math.max(max, e.ts), previous?.ts ?? Number.NEGATIVE_INFINITY),
            seq: dropped.reduce((max, e) => Math.max(max, e.seq + 1), previous?.seq ?? 0),
            compactedAt: ctx.ts,
          };
          await writeSetting(HORIZON_KEY, horizon);
          await journal({ ...ctx, meta: { ...ctx.meta, removed: dropped.length, horizonTs: horizon.ts } }, [{ id: '*', before: null, after: null }]);
          return { removed: dropped.length, horizon };
        }),
      ),

    journalHorizon: () => run('journalHorizon', async () => (await readSetting<JournalHorizon>(HORIZON_KEY)) ?? null),

    plantCanary: (candidate) =>
      run('plantCanary', () =>
        db.transaction('rw', db.meta, async () => {
          const existing = await readSetting<string>(CANARY_KEY);
          if (typeof existing === 'string') return existing;
          await writeSetting(CANARY_KEY, candidate);
          return candidate;
        }),
      ),

    durabilitySnapshot: () =>
      run('durabilitySnapshot', () =>
        db.transaction('r', [db.meta, db.memories, db.journal, db.importUndo], async () => {
          const canary = await readSetting<string>(CANARY_KEY);
          const meta = (await db.meta.get('store'))?.value;
          const count = await db.memories.count();
          const [newestSeq = 0] = await db.journal.orderBy('seq').reverse().limit(1).primaryKeys();
          const importPending = (await db.importUndo.limit(1).primaryKeys()).length > 0;
          return { canary: typeof canary === 'string' ? canary : null, count, booked: meta?.lexicalDocs ?? 0, newestSeq, importPending };
        }),
      ),

    moveToTrash: (ids, ctx) =>
      run('moveToTrash', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.tombstones, db.trash, db.journal, db.importUndo], async () => {
          await refuseHeld(ids);
          const rows = (await db.memories.bulkGet(ids)).filter((r): r is MemoryRow => r !== undefined);
          if (rows.length === 0) return { added: [], removedLabels: [], generation: (await db.meta.get('store'))!.value.generation };
          const vectors = await db.vectors.bulkGet(rows.map((r) => r.label));
          await db.trash.bulkAdd(
            rows.map((r, i) => ({ id: r.id, deletedAt: ctx.ts, actor: ctx.actor, memory: strip(r), ...(vectors[i] ? { vector: vectors[i]!.vector } : {}) })),
          );
          await journal(ctx, rows.map((r) => ({ id: r.id, before: strip(r), after: null })));
          const { meta } = await bumpGeneration(0, { docs: -rows.length, length: -rows.reduce((sum, r) => sum + (r.termLength ?? 0), 0) });
          const removedLabels = rows.map((r) => r.label);
          await db.memories.bulkDelete(rows.map((r) => r.id));
          await db.vectors.bulkDelete(removedLabels);
          await db.tombstones.bulkPut(removedLabels.map((label) => ({ label, gen: meta.generation })));
          return { added: [], removedLabels, generation: meta.generation };
        }),
      ),

    listTrash: () =>
      run('listTrash', async () =>
        (await db.trash.orderBy('seq').toArray()).map((t) => ({ id: t.id, deletedAt: t.deletedAt, actor: t.actor, memory: t.memory })),
      ),

    restoreFromTrash: (id, ctx) =>
      run('restoreFromTrash', () =>
        db.transaction('rw', [db.meta, db.memories, db.vectors, db.trash, db.journal, db.importUndo], async () => {
          await refuseHeld([id]);
          const entries = await db.trash.where('id').equals(id).sortBy('seq');
          const entry = entries[entries.length - 1];
          if (!entry || (await db.memories.get(id))) return null;
          if (!entry.vector) return { needsVector: entry.memory };
          const row = { ...entry.memory, ...derivedFields(entry.memory), label: 0 };
          const { meta, firstLabel } = await bumpGeneration(1, { docs: 1, length: row.termLength });
          row.label = firstLabel;
          await db.memories.add(row);
          await db.vectors.add({ label: firstLabel, vector: entry.vector, gen: meta.generation });
          await db.trash.where('id').equals(id).delete();
          await journal(ctx, [{ id, before: null, after: entry.memory }]);
          return { memory: entry.memory, delta: { added: [{ label: firstLabel, vector: loadedVector(entry.vector) }], removedLabels: [], generation: meta.generation } };
        }),
      ),

    trashVectors: (ids) =>
      run('trashVectors', async () => {
        const out = new Map<string, { text: string; vector: Float32Array }>();
        // Oldest first, so the newest entry of an id is the one kept.
        for (const t of await db.trash.where('id').anyOf(ids).sortBy('seq')) {
          if (t.vector) out.set(t.id, { text: t.memory.text, vector: loadedVector(t.vector) });
        }
        return out;
      }),

    purgeTrash: (query) =>
      run('purgeTrash', async () => {
        if (query.id !== undefined) return db.trash.where('id').equals(query.id).delete();
        if (query.ids !== undefined) return query.ids.length ? db.trash.where('id').anyOf(query.ids).delete() : 0;
        if (query.before !== undefined) return db.trash.where('deletedAt').below(query.before).delete();
        const n = await db.trash.count();
        await db.trash.clear();
        return n;
      }),

    getSetting: (key) => run('getSetting', () => readSetting(key)),

    putSetting: (key, value) => run('putSetting', () => writeSetting(key, value)),

    allMemories: () => run('allMemories', async () => (await db.memories.toArray()).map(strip)),

    close: () => db.close(),
  };
  return storage;
}

/** Deletes a store's database (all its memories and vectors). */
export async function deleteDexieStorage(store: string, options: DexieStorageOptions = {}): Promise<void> {
  try {
    await new MemoryDatabase(databaseName(store), options).delete();
  } catch (error) {
    throw mapStorageError(error, 'delete');
  }
}
