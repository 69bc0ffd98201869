/** The trash role: memories moved aside with their vectors, restorable without a model. */
import type { TrashStore } from '../ports.ts';
import type { Key, StorageTx } from './port.ts';
import { MEMORIES, rowById, rowsById } from './memory-table.ts';
import { isDefined, loadedVector, rowOf, strip, type MemoryRow, type TrashRow, type VectorRow } from './rows.ts';
import { bumpGeneration, deleteRows, journal, refuseHeld, requireMeta, ONE_CALL, type Run } from './tx.ts';

/** Trash entries of some ids, oldest first (several entries can hold one id). */
async function entriesOf(tx: StorageTx, ids: readonly string[]): Promise<TrashRow[]> {
  return (await tx.query<TrashRow>('trash', { index: 'id', anyOf: [...new Set(ids)] })).sort((a, b) => a.seq! - b.seq!);
}

async function deleteEntries(tx: StorageTx, rows: readonly TrashRow[]): Promise<number> {
  await tx.delete('trash', rows.map((r) => r.seq as Key));
  return rows.length;
}

export function trashStore(run: Run): TrashStore {
  return {
    moveToTrash: (ids, ctx) =>
      run('moveToTrash', 'rw', ['meta', MEMORIES, 'vectors', 'tombstones', 'trash', 'journal', 'importUndo'], async (tx) => {
        await refuseHeld(tx, ids);
        const rows = (await rowsById(tx, ids)).filter(isDefined);
        if (rows.length === 0) return { added: [], removedLabels: [], generation: (await requireMeta(tx)).generation };
        const vectors = await tx.getMany<VectorRow>('vectors', rows.map((r) => r.label));
        await tx.add(
          'trash',
          rows.map((r, i): TrashRow => ({ id: r.id, deletedAt: ctx.ts, actor: ctx.actor, memory: strip(r), ...(vectors[i] ? { vector: vectors[i]!.vector } : {}) })),
        );
        await journal(tx, ctx, rows.map((r) => ({ id: r.id, before: strip(r), after: null })));
        const { generation, removedLabels } = await deleteRows(tx, rows);
        return { added: [], removedLabels, generation };
      }),

    listTrash: () =>
      run('listTrash', 'r', ['trash'], async (tx) => (await tx.query<TrashRow>('trash')).map((t) => ({ id: t.id, deletedAt: t.deletedAt, actor: t.actor, memory: t.memory })), ONE_CALL),

    restoreFromTrash: (id, ctx) =>
      run('restoreFromTrash', 'rw', ['meta', MEMORIES, 'vectors', 'trash', 'journal', 'importUndo'], async (tx) => {
        await refuseHeld(tx, [id]);
        const entries = await entriesOf(tx, [id]);
        const entry = entries[entries.length - 1];
        if (!entry || (await rowById(tx, id))) return null;
        if (!entry.vector) return { needsVector: entry.memory };
        const row = rowOf(entry.memory, 0);
        const { meta, firstLabel } = await bumpGeneration(tx, 1, { docs: 1, length: row.termLength });
        row.label = firstLabel;
        await tx.add(MEMORIES, [row]);
        await tx.add('vectors', [{ label: firstLabel, vector: entry.vector, gen: meta.generation }]);
        await deleteEntries(tx, entries);
        await journal(tx, ctx, [{ id, before: null, after: entry.memory }]);
        return { memory: entry.memory, delta: { added: [{ label: firstLabel, vector: loadedVector(entry.vector) }], removedLabels: [], generation: meta.generation } };
      }),

    trashVectors: (ids) =>
      run('trashVectors', 'r', ['trash'], async (tx) => {
        const out = new Map<string, { text: string; vector: Float32Array }>();
        // Oldest first, so the newest entry of an id is the one kept.
        for (const t of await entriesOf(tx, ids)) if (t.vector) out.set(t.id, { text: t.memory.text, vector: loadedVector(t.vector) });
        return out;
      }, ONE_CALL),

    purgeTrash: (query) =>
      run('purgeTrash', 'rw', ['trash'], async (tx) => {
        if (query.id !== undefined) return deleteEntries(tx, await entriesOf(tx, [query.id]));
        if (query.ids !== undefined) return deleteEntries(tx, await entriesOf(tx, query.ids));
        const keys = await tx.keys('trash', query.before === undefined ? {} : { index: 'deletedAt', range: { upper: query.before, upperOpen: true } });
        await tx.delete('trash', keys.map((k) => k.primaryKey));
        return keys.length;
      }),
  };
}
