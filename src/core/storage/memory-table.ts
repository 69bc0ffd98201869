/**
 * The memory rows table by id. Rows are keyed by label (schema.ts: a number keeps every index
 * entry small); a memory's id is a unique index, read here, so no role reads by id another way.
 * A row's label changes when its vector does: the old row is deleted before the new one is put,
 * or the id would be held twice.
 */
import type { StorageTx } from './port.ts';
import type { MemoryRow } from './rows.ts';

export const MEMORIES = 'memoryRows' as const;

/** Up to this many ids are read one exact index read each (`rowsById`). */
const FEW_IDS = 64;

/** The rows of some ids, in the ids' order (undefined where absent): a few read side by side, many in one index read. */
export async function rowsById(tx: StorageTx, ids: readonly string[]): Promise<(MemoryRow | undefined)[]> {
  if (ids.length === 0) return [];
  // A few ids: one exact index read each, side by side. One `anyOf` read is a single request, but
  // fake-indexeddb (Node) walks the whole index for it: 271 ms for 10 ids among 20,000 memories,
  // against a few milliseconds this way (BENCHMARKS.md, issue #30, session 3).
  if (ids.length <= FEW_IDS) return Promise.all(ids.map((id) => rowById(tx, id)));
  const found = new Map((await tx.query<MemoryRow>(MEMORIES, { index: 'id', anyOf: [...new Set(ids)] })).map((row) => [row.id, row]));
  return ids.map((id) => found.get(id));
}

export async function rowById(tx: StorageTx, id: string): Promise<MemoryRow | undefined> {
  return (await tx.query<MemoryRow>(MEMORIES, { index: 'id', equals: id, limit: 1 }))[0];
}
