/**
 * The rules several roles apply inside one transaction: the metadata row and its generation
 * and label counters, settings, the journal written beside the data, the vector log's
 * tombstones, and the holds an import in progress keeps on the rows it wrote.
 */
import { MemoryError } from '../errors.ts';
import { compactEntry } from '../domain/journal-patch.ts';
import type { ImportLease, JournalContext, StoreMeta } from '../ports.ts';
import type { Memory } from '../types.ts';
import { MAX_KEY, type Key, type KeyRange, type StorageEngine, type StorageTx, type TxMode, type TxOptions } from './port.ts';
import { MEMORIES } from './memory-table.ts';
import type { MemoryRow } from './rows.ts';
import type { TableName } from './schema.ts';

/**
 * Runs one operation in one transaction, with the backend's failures as `MemoryError`.
 * `ONE_CALL` marks a body that makes a single call (see `TxOptions`).
 */
export type Run = <T>(operation: string, mode: TxMode, tables: readonly TableName[], body: (tx: StorageTx) => Promise<T>, options?: TxOptions) => Promise<T>;

export const ONE_CALL: TxOptions = { oneCall: true };

export function runner(engine: StorageEngine): Run {
  return async (operation, mode, tables, body, options) => {
    try {
      return await engine.transaction(mode, tables, body, options);
    } catch (error) {
      throw engine.mapError(error, operation);
    }
  };
}

/** Keys starting with `prefix` (strings). */
export function prefixRange(prefix: string): KeyRange {
  return { lower: prefix, upper: `${prefix}\uffff` };
}

/** Every key of a compound index whose first part is `first`. */
export function firstPartRange(first: Key): KeyRange {
  return { lower: [first], upper: [first, MAX_KEY] };
}

export async function readMeta(tx: StorageTx): Promise<StoreMeta | undefined> {
  return (await tx.get<{ value: StoreMeta }>('meta', 'store'))?.value;
}

export async function requireMeta(tx: StorageTx): Promise<StoreMeta> {
  const meta = await readMeta(tx);
  if (!meta) throw new MemoryError('STORAGE_FAILURE', 'The store has no metadata row');
  return meta;
}

/**
 * A write that changes the vector set: the next generation, `labelsNeeded` labels from the
 * counter, and the lexical corpus statistics moved by `lexical`.
 */
export async function bumpGeneration(tx: StorageTx, labelsNeeded: number, lexical = { docs: 0, length: 0 }): Promise<{ meta: StoreMeta; firstLabel: number }> {
  const previous = await requireMeta(tx);
  const meta: StoreMeta = {
    ...previous,
    generation: previous.generation + 1,
    nextLabel: previous.nextLabel + labelsNeeded,
    lexicalDocs: (previous.lexicalDocs ?? 0) + lexical.docs,
    lexicalLength: (previous.lexicalLength ?? 0) + lexical.length,
  };
  await tx.put('meta', [{ key: 'store', value: meta }]);
  return { meta, firstLabel: previous.nextLabel };
}

const settingKey = (key: string): string => `setting:${key}`;

export async function readSetting<T>(tx: StorageTx, key: string): Promise<T | undefined> {
  return (await tx.get<{ value: T }>('meta', settingKey(key)))?.value;
}

export async function writeSetting(tx: StorageTx, key: string, value: unknown): Promise<void> {
  await tx.put('meta', [{ key: settingKey(key), value }]);
}

export async function deleteSetting(tx: StorageTx, key: string): Promise<void> {
  await tx.delete('meta', [settingKey(key)]);
}

/** Settings keys of the journal horizon, the store's canary, and import leases (`importLease:<importId>`). */
export const HORIZON_KEY = 'journalHorizon';
export const CANARY_KEY = 'canary';
export const LEASE_SETTING = 'importLease:';

export type JournalWrite = { id: string; before: Memory | null; after: Memory | null; op?: string };

/** Appends journal entries inside the caller's transaction (the journal and the data never disagree). */
export async function journal(tx: StorageTx, ctx: JournalContext | undefined, entries: JournalWrite[]): Promise<void> {
  if (!ctx || entries.length === 0) return;
  await tx.add(
    'journal',
    entries.map(compactEntry).map((e) => ({
      ts: ctx.ts,
      op: e.op ?? ctx.op,
      actor: ctx.actor,
      id: e.id,
      before: e.before,
      after: e.after,
      ...(e.links ? { links: e.links } : {}),
      ...(e.created ? { created: true } : {}),
      meta: ctx.meta ?? {},
      group: ctx.group,
    })),
  );
}

/** Removes rows' vectors and records their labels as tombstones of `generation`. */
export async function dropVectors(tx: StorageTx, labels: readonly number[], generation: number): Promise<void> {
  if (labels.length === 0) return;
  await tx.delete('vectors', labels);
  await tx.put('tombstones', labels.map((label) => ({ label, gen: generation })));
}

/** Deletes memory rows with their vectors, booking the lexical statistics and the tombstones. */
export async function deleteRows(tx: StorageTx, rows: readonly MemoryRow[]): Promise<{ generation: number; removedLabels: number[] }> {
  const { meta } = await bumpGeneration(tx, 0, { docs: -rows.length, length: -rows.reduce((sum, r) => sum + (r.termLength ?? 0), 0) });
  const removedLabels = rows.map((r) => r.label);
  await tx.delete(MEMORIES, removedLabels);
  await dropVectors(tx, removedLabels, meta.generation);
  return { generation: meta.generation, removedLabels };
}

/** The ids of the imports holding a lease (the transaction must include `meta`). */
export async function leasedImports(tx: StorageTx): Promise<string[]> {
  const prefix = settingKey(LEASE_SETTING);
  return (await tx.keys('meta', { range: prefixRange(prefix) })).map((k) => String(k.primaryKey).slice(prefix.length));
}

/**
 * Refuses (the transaction must include `meta` and `importUndo`) a write to a memory that an
 * import in progress holds (it inserted or overwrote it): that import's rollback would put the
 * row back as it was and lose the write. BUSY until the import ends.
 */
export async function refuseHeld(tx: StorageTx, ids: readonly string[], except?: string): Promise<void> {
  if (ids.length === 0) return;
  for (const importId of await leasedImports(tx)) {
    if (importId === except) continue;
    const held = await tx.getMany('importUndo', ids.map((id) => [importId, id]));
    const at = held.findIndex((row) => row !== undefined);
    if (at !== -1) {
      throw new MemoryError('BUSY', `Memory ${JSON.stringify(ids[at])} is being written by an import in progress; try again when it has finished`, {
        id: ids[at],
        importId,
      });
    }
  }
}

/** The import's lease, or ABORTED: another owner rolled it back. */
export async function requireLease(tx: StorageTx, importId: string): Promise<ImportLease> {
  const lease = await readSetting<ImportLease>(tx, `${LEASE_SETTING}${importId}`);
  if (!lease) {
    throw new MemoryError('ABORTED', 'This import was rolled back by another owner of the store (its lease had lapsed); nothing of it was kept', {
      reason: 'lease-lost',
      importId,
    });
  }
  return lease;
}
