/**
 * Memory rows as stored: a field that holds its default is left out of the stored row and put
 * back when the row is read (issue #30, bytes). Most memories have no tags, links, source,
 * expiry, validity window, supersession or pin, and were never recalled; written out, those
 * fields' names and values were ~200 of a row's ~700 serialised bytes, and every row on disk
 * repeats them.
 *
 * Below the storage core and above the backend: the core, its read cache and every reader see
 * whole rows; only the engine holds the short ones. Rows written whole (before schema v13) read
 * the same. An index over a field left out behaves as before: `tags` and `linkTargets` are
 * multi-entry, where no field and an empty list both give no entry.
 */
import type { Key, Query, StorageEngine, StorageTx } from './port.ts';
import type { MemoryRow } from './rows.ts';
import type { TableName } from './schema.ts';

/** The fields left out at their default, with that default (a list is made afresh on every read). */
const SCALAR_DEFAULTS = {
  accessCount: 0,
  source: null,
  supersededBy: '',
  supersededAt: 0,
  polarity: 0,
  expiresAt: 0,
  pinned: false,
  validFrom: 0,
  validUntil: 0,
} as const;
const LIST_FIELDS = ['tags', 'links', 'surfacesWhen', 'linkTargets'] as const;
const IS_LIST: ReadonlySet<string> = new Set(LIST_FIELDS);

type Packed = Partial<MemoryRow> & Pick<MemoryRow, 'label' | 'id' | 'createdAt'>;

/** The row as stored: its default-valued fields left out, `lastAccessed` too while it equals `createdAt`. */
export function packRow(row: MemoryRow): Packed {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === undefined) continue;
    if (Object.hasOwn(SCALAR_DEFAULTS, key) && SCALAR_DEFAULTS[key as keyof typeof SCALAR_DEFAULTS] === value) continue;
    if (IS_LIST.has(key) && Array.isArray(value) && value.length === 0) continue;
    if (key === 'lastAccessed' && value === row.createdAt) continue;
    out[key] = value;
  }
  return out as Packed;
}

/** A stored row, whole again (a row stored whole comes back as it was). */
export function unpackRow(stored: Packed): MemoryRow {
  const row = stored as Record<string, unknown>;
  for (const [key, value] of Object.entries(SCALAR_DEFAULTS)) if (row[key] === undefined) row[key] = value;
  for (const key of LIST_FIELDS) if (row[key] === undefined) row[key] = [];
  if (row.lastAccessed === undefined) row.lastAccessed = stored.createdAt;
  return row as unknown as MemoryRow;
}

const MEMORY_ROWS: TableName = 'memoryRows';

/** Rows that came out of the engine, whole (the engine hands out copies, so they are filled in place). */
const unpacked = <T>(table: TableName, rows: T[]): T[] => (table === MEMORY_ROWS ? rows.map((r) => (r === undefined ? r : (unpackRow(r as unknown as Packed) as unknown as T))) : rows);
const packed = (table: TableName, rows: readonly object[]): readonly object[] => (table === MEMORY_ROWS ? rows.map((r) => packRow(r as MemoryRow)) : rows);

function packedTx(tx: StorageTx): StorageTx {
  return {
    get: async <T>(table: TableName, key: Key) => {
      const row = await tx.get<T>(table, key);
      return table === MEMORY_ROWS && row !== undefined ? (unpackRow(row as unknown as Packed) as unknown as T) : row;
    },
    getMany: async (table, keys) => unpacked(table, await tx.getMany(table, keys)),
    query: async <T>(table: TableName, query?: Query<T>) => {
      // A filter sees whole rows, as the caller wrote them.
      // (on a copy: an engine may filter its own objects before copying them out).
      const whole: Query<T> | undefined = table === MEMORY_ROWS && query?.filter ? { ...query, filter: (row: T) => query.filter!(unpackRow({ ...(row as unknown as Packed) }) as unknown as T) } : query;
      return unpacked(table, await tx.query<T>(table, whole));
    },
    keys: (table, query) => tx.keys(table, query),
    count: (table, query) => tx.count(table, query),
    add: (table, rows) => tx.add(table, packed(table, rows)),
    put: (table, rows) => tx.put(table, packed(table, rows)),
    delete: (table, keys) => tx.delete(table, keys),
  };
}

/** `backend` with memory rows stored packed (see the module comment). */
export function packedRows(backend: StorageEngine): StorageEngine {
  return {
    ...(backend.id === undefined ? {} : { id: backend.id }),
    ...(backend.watch ? { watch: (listener: (tables: readonly TableName[]) => void) => backend.watch!(listener) } : {}),
    transaction: (mode, tables, body, options) => backend.transaction(mode, tables, (tx) => body(packedTx(tx)), options),
    mapError: (error, operation) => backend.mapError(error, operation),
    close: () => backend.close(),
  };
}
