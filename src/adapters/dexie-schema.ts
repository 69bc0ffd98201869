/**
 * The Dexie backend's schema: the history of the IndexedDB layout, each version with its
 * upgrade, and the database class that replays it. The tables it ends with are the ones
 * core/storage/schema.ts declares (test/storage-port.contract.test.ts checks).
 */
import Dexie, { type Transaction } from 'dexie';
import { lexicalFields } from '../core/domain/lexical-index.ts';
import type { IndexedDbOptions } from './indexeddb-errors.ts';
import { sparseFields, storedVector, type MemoryRow, type StoredVector } from '../core/storage/rows.ts';
import type { StoreMeta } from '../core/ports.ts';

interface MetaRow {
  key: string;
  value: StoreMeta;
}

/**
 * The store's metadata row alone: the meta table holds settings too (`setting:<key>`), whose
 * values can be strings (the canary), so an upgrade never writes to every row of it.
 */
function storeRow(tx: Transaction) {
  return tx.table('meta').where('key').equals('store');
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
    await storeRow(tx).modify((row: MetaRow) => {
      row.value.lexicalDocs = docs;
      row.value.lexicalLength = length;
    });
  };
}

/** One schema step on an existing database: its own work, if any, then the version it leaves in the metadata row. */
async function upgradeTo(version: number, tx: Transaction, step: SchemaVersion['upgrade'], progress: UpgradeProgress): Promise<void> {
  if (step) await step(tx, progress);
  await storeRow(tx).modify((row: MetaRow) => {
    row.value.schemaVersion = version;
  });
}

/**
 * Dexie schema history. Append-only: a released version is never edited, a change adds a new
 * entry with its upgrade function (and a migration test in test/storage-dexie.test.ts).
 */
export interface SchemaVersion {
  version: number;
  /** A table's indexes, or null: the table goes once this version's upgrade has run. */
  stores: Record<string, string | null>;
  /** `progress(done, total)`: how far a long upgrade has got (rows rewritten; see `UpgradeProgress`). */
  upgrade?: (tx: Transaction, progress: UpgradeProgress) => Promise<void>;
}

/**
 * How far an upgrade has got: rows done of `total`, or, with `total` null, a step whose length the
 * browser does not report (an index it builds over every row) that has started.
 */
export type UpgradeProgress = (done: number, total: number | null) => void;

/** Rows moved per step by an upgrade that moves a whole table (v12). */
const MOVE_PAGE = 2_000;

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
  {
    // v12: memory rows keyed by label (issue #30). Every index entry carries its row's primary
    // key, and a 36-character id made each of a row's index entries (up to ~15: terms, tags, hash, links…)
    // cost as much as its key; a number costs a few bytes, new rows append at the key's end
    // instead of landing at a random place, and recall reads its hits by primary key instead of
    // through the label index. IndexedDB cannot change a table's primary key, so the rows move
    // to a new table a page at a time (progress per page) and the old one is dropped at the end
    // of the same versionchange transaction: upgraded whole or not at all.
    version: 12,
    stores: {
      memories: null,
      memoryRows: 'label, &id, type, *tags, contentHash, *terms, *linkTargets, [createdAt+id], superseded, positive',
    },
    async upgrade(tx, progress) {
      const from = tx.table('memories');
      const to = tx.table('memoryRows');
      const total = await from.count();
      if (total === 0) return;
      progress(0, total);
      let done = 0;
      for (let after: number | undefined; ; ) {
        const page = (await (after === undefined ? from.orderBy('label') : from.where('label').above(after)).limit(MOVE_PAGE).toArray()) as MemoryRow[];
        if (page.length === 0) break;
        await to.bulkAdd(page);
        done += page.length;
        after = page[page.length - 1]!.label;
        progress(done, total);
      }
    },
  },
  {
    // v13: memory rows stored without their default-valued fields (core/storage/row-codec.ts).
    // No table changes and nothing rewritten: rows stored whole read as before. The version
    // says a store may hold short rows, so a build from before, which would read them as broken,
    // refuses to open it (VersionError) instead.
    version: 13,
    stores: {},
  },
  {
    // v14: two index entries of every memory go (issue #30, bytes). A string in an IndexedDB key
    // is stored as UTF-16 and random hex barely compresses, so each cost ~70–80 bytes a memory:
    // - the time order is indexed by (createdAt, label) instead of (createdAt, id): a number, 8
    //   bytes, where the id took 72. Ties now list in write order (labels grow), newest first;
    // - the `contentHash` index, which no query ever read (the hash stays in the row).
    // IndexedDB builds the new index from the rows inside the versionchange transaction: no row
    // is rewritten, and a tab closed halfway leaves the store at v13.
    version: 14,
    stores: {
      memoryRows: 'label, &id, type, *tags, *terms, *linkTargets, [createdAt+label], superseded, positive',
    },
    // The build takes minutes at a million memories (BENCHMARKS.md, schema v14) and IndexedDB
    // reports nothing while it runs. Dexie calls this as soon as the new index is declared, before
    // the build, and the browser answers a request only once the build is done: "started", then
    // "done". The metadata row's memory count answers it; counting the rows would read every key.
    async upgrade(tx, progress) {
      progress(0, null);
      const meta = (await storeRow(tx).first()) as MetaRow | undefined;
      const memories = meta?.value.lexicalDocs ?? (await tx.table('memoryRows').count());
      progress(memories, memories);
    },
  },
];
export const SCHEMA_VERSION = SCHEMA_VERSIONS[SCHEMA_VERSIONS.length - 1]!.version;


/** The IndexedDB database name of a store. */
export function databaseName(store: string): string {
  return `houkai-web:${store}`;
}

/** Where the store's database lives (see `IndexedDbOptions`), and who hears how a schema upgrade is going. */
export interface DexieStorageOptions extends IndexedDbOptions {
  /** How far a schema upgrade at open has got (`UpgradeProgress`: v11 rewrites every vector, v14 builds an index). */
  onUpgradeProgress?: UpgradeProgress;
}

/** A store's database: the schema history replayed, each later version's upgrade recording itself. */
export class MemoryDatabase extends Dexie {
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

