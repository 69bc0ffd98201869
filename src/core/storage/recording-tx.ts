/**
 * A transaction that notes what it committed for the read cache: memory rows and vectors
 * written, labels deleted (memory rows and vectors are both keyed by label), the metadata row,
 * and that the review queue changed.
 */
import type { StoreMeta } from '../ports.ts';
import type { Key, StorageTx } from './port.ts';
import type { MemoryRow, VectorRow } from './rows.ts';
import type { TableName } from './schema.ts';

/**
 * `bulk`: written by a batch larger than `CACHED_BATCH` (a sync page, an import): the read cache
 * updates its lexical index but does not keep the row or vector, so a bulk write does not fill
 * the cache (and the process's memory) with rows nobody has asked for yet.
 */
export type Change = { row: MemoryRow; bulk?: true } | { vector: VectorRow; bulk?: true } | { gone: number } | { meta: StoreMeta } | { conflicts: 'changed' };

/** Rows a write may add and still have the read cache keep them (a remember, a chat's turns). */
export const CACHED_BATCH = 64;

/** Whether writes to the table concern the read cache. */
export const watched = (table: TableName): boolean => table === 'memoryRows' || table === 'vectors' || table === 'meta' || table === 'conflicts';

/** `tx`, noting into `changes` what its writes change for the read cache. */
export function recording(tx: StorageTx, changes: Change[]): StorageTx {
  return {
    get: (table, key) => tx.get(table, key),
    getMany: (table, keys) => tx.getMany(table, keys),
    query: (table, query) => tx.query(table, query),
    keys: (table, query) => tx.keys(table, query),
    count: (table, query) => tx.count(table, query),
    add: async (table, rows) => {
      const keys = await tx.add(table, rows);
      note(table, rows, changes);
      return keys;
    },
    put: async (table, rows) => {
      await tx.put(table, rows);
      note(table, rows, changes);
    },
    delete: async (table, keys: readonly Key[]) => {
      const labels = table === 'memoryRows' || table === 'vectors' ? (keys as number[]) : [];
      await tx.delete(table, keys);
      for (const label of labels) changes.push({ gone: label });
      if (table === 'conflicts' && keys.length > 0) changes.push({ conflicts: 'changed' });
    },
  };
}

function note(table: TableName, rows: readonly object[], changes: Change[]): void {
  const bulk = rows.length > CACHED_BATCH ? { bulk: true as const } : {};
  if (table === 'memoryRows') for (const row of rows) changes.push({ row: row as MemoryRow, ...bulk });
  else if (table === 'vectors') for (const row of rows) changes.push({ vector: row as VectorRow, ...bulk });
  else if (table === 'meta') {
    for (const row of rows as { key: string; value: StoreMeta }[]) if (row.key === 'store') changes.push({ meta: row.value });
  } else if (table === 'conflicts' && rows.length > 0) changes.push({ conflicts: 'changed' });
}
