/**
 * The memory rows table by id. Rows are keyed by label (schema.ts: a number keeps every index
 * entry small); a memory's id is a unique index, read here, so no role reads by id another way.
 * A row's label changes when its vector does: the old row is deleted before the new one is put,
 * or the id would be held twice.
 */
import type { StorageTx } from './port.ts';
import type { MemoryRow } from './rows.ts';

export const MEMORIES = 'memoryRows' as const;

/** The rows of some ids, in the ids' order (undefined where absent): one index read. */
export async function rowsById(tx: StorageTx, ids: readonly string[]): Promise<(MemoryRow | undefined)[]> {
  if (ids.length === 0) return [];
  if (ids.length === 1) return [await rowById(tx, ids[0]!)];
  const found = new Map((await tx.query<MemoryRow>(MEMORIES, { index: 'id', anyOf: [...new Set(ids)] })).map((row) => [row.id, row]));
  return ids.map((id) => found.get(id));
}

export async function rowById(tx: StorageTx, id: string): Promise<MemoryRow | undefined> {
  return (await tx.query<MemoryRow>(MEMORIES, { index: 'id', equals: id, limit: 1 }))[0];
}
