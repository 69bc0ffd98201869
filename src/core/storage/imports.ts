/**
 * The import log role: an import in progress writes in batches under a lease, keeps what each
 * batch replaced, and is either finished (the undo rows forgotten) or rolled back whole.
 */
import type { ImportLease, ImportLog } from '../ports.ts';
import type { StorageTx } from './port.ts';
import { MEMORIES, rowsById } from './memory-table.ts';
import { derivedFields, isDefined, loadedVector, rowOf, storedVector, strip, type ImportUndoRow, type MemoryRow, type VectorRow } from './rows.ts';
import {
  bumpGeneration,
  deleteSetting,
  dropVectors,
  firstPartRange,
  journal,
  LEASE_SETTING,
  leasedImports,
  readSetting,
  refuseHeld,
  requireLease,
  writeSetting,
  type Run,
} from './tx.ts';

/** Forgets an import: its undo rows and its lease. */
async function release(tx: StorageTx, importId: string): Promise<void> {
  await tx.delete('importUndo', (await tx.keys('importUndo', { range: firstPartRange(importId) })).map((k) => k.primaryKey));
  await deleteSetting(tx, `${LEASE_SETTING}${importId}`);
}

export function importLog(run: Run): ImportLog {
  return {
    importBatch: (importId, writes, ctx) =>
      run('importBatch', 'rw', ['meta', MEMORIES, 'vectors', 'tombstones', 'importUndo', 'journal'], async (tx) => {
        await requireLease(tx, importId);
        await refuseHeld(tx, writes.map((w) => w.memory.id), importId);
        const existing = await rowsById(tx, writes.map((w) => w.memory.id));
        const undo = await tx.getMany<ImportUndoRow>('importUndo', writes.map((w) => [importId, w.memory.id]));
        const removed: MemoryRow[] = [];
        const seen = new Map<string, MemoryRow | undefined>();
        const rows = writes.map((w) => rowOf(w.memory, 0));
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
          if (!undo[i] && !seen.has(id)) undoRows.push(current ? { importId, id, kind: 'overwritten', row: current } : { importId, id, kind: 'inserted' });
          seen.set(id, rows[i]);
          docDelta += 1;
          lengthDelta += rows[i]!.termLength;
        }
        // Overwritten rows keep their vector in the undo log too (one read for the batch).
        const replaced = undoRows.filter((u) => u.row);
        if (replaced.length) {
          const vectors = await tx.getMany<VectorRow>('vectors', replaced.map((u) => u.row!.label));
          replaced.forEach((u, i) => {
            const vector = vectors[i]?.vector;
            if (vector) u.vector = vector;
          });
        }
        if (undoRows.length) await tx.put('importUndo', undoRows);
        const { meta, firstLabel } = await bumpGeneration(tx, rows.length, { docs: docDelta, length: lengthDelta });
        rows.forEach((row, i) => (row.label = firstLabel + i));
        const removedLabels = removed.map((r) => r.label);
        // Deleted before the new rows are put: an id is a unique index.
        await tx.delete(MEMORIES, [...new Set(removedLabels)]);
        await dropVectors(tx, removedLabels, meta.generation);
        // Later rows with the same id replace earlier ones (apply in order).
        const last = new Map(rows.map((r) => [r.id, r]));
        const kept = rows.filter((r) => last.get(r.id) === r);
        const dropped = rows.filter((r) => last.get(r.id) !== r).map((r) => r.label);
        await journal(tx, ctx, writes.map((w, i) => ({ id: w.memory.id, before: existing[i] ? strip(existing[i]!) : null, after: w.memory })));
        const vectorOf = new Map(rows.map((r, i) => [r, storedVector(writes[i]!.vector)]));
        await tx.put(MEMORIES, kept);
        await tx.put('vectors', kept.map((r): VectorRow => ({ label: r.label, vector: vectorOf.get(r)!, gen: meta.generation })));
        if (dropped.length) await tx.put('tombstones', dropped.map((label) => ({ label, gen: meta.generation })));
        return { added: kept.map((r) => ({ label: r.label, vector: loadedVector(vectorOf.get(r)!) })), removedLabels, generation: meta.generation };
      }),

    rollbackImport: (importId) =>
      run('rollbackImport', 'rw', ['meta', MEMORIES, 'vectors', 'tombstones', 'importUndo', 'journal'], async (tx) => {
        // The import's journal entries share its id as their group: a rolled-back import never happened.
        await tx.delete('journal', (await tx.keys('journal', { index: 'group', equals: importId })).map((k) => k.primaryKey));
        const entries = await tx.query<ImportUndoRow>('importUndo', { range: firstPartRange(importId) });
        const removed = (await rowsById(tx, entries.map((e) => e.id))).filter(isDefined);
        const restored = entries.filter((e) => e.kind === 'overwritten' && e.row);
        const lengthDelta = restored.reduce((s, e) => s + (e.row!.termLength ?? 0), 0) - removed.reduce((s, r) => s + (r.termLength ?? 0), 0);
        const { meta, firstLabel } = await bumpGeneration(tx, restored.length, { docs: restored.length - removed.length, length: lengthDelta });
        const removedLabels = removed.map((r) => r.label);
        await tx.delete(MEMORIES, removedLabels);
        await dropVectors(tx, removedLabels, meta.generation);
        const added: { label: number; vector: Float32Array }[] = [];
        for (const [i, e] of restored.entries()) {
          const label = firstLabel + i;
          // The undo log's row may predate this schema: its derived fields are derived again.
          await tx.put(MEMORIES, [{ ...e.row!, ...derivedFields(strip(e.row!)), label }]);
          if (e.vector) {
            await tx.put('vectors', [{ label, vector: e.vector, gen: meta.generation }]);
            added.push({ label, vector: loadedVector(e.vector) });
          }
        }
        await release(tx, importId);
        return { added, removedLabels, generation: meta.generation };
      }),

    finishImport: (importId) =>
      run('finishImport', 'rw', ['meta', 'importUndo'], async (tx) => {
        await requireLease(tx, importId);
        await release(tx, importId);
      }),

    beginImport: (lease) => run('beginImport', 'rw', ['meta'], (tx) => writeSetting(tx, `${LEASE_SETTING}${lease.importId}`, lease)),

    renewImport: (importId, heartbeatAt) =>
      run('renewImport', 'rw', ['meta'], async (tx) => {
        const lease = await readSetting<ImportLease>(tx, `${LEASE_SETTING}${importId}`);
        if (!lease) return false;
        await writeSetting(tx, `${LEASE_SETTING}${importId}`, { ...lease, heartbeatAt: Math.max(lease.heartbeatAt, heartbeatAt) });
        return true;
      }),

    pendingImports: () =>
      run('pendingImports', 'r', ['meta', 'importUndo'], async (tx) => {
        // One key per import: each read starts past the last import found.
        const ids = new Set<string>();
        for (let after: string | undefined; ; ) {
          const [next] = await tx.keys('importUndo', { index: 'importId', ...(after === undefined ? {} : { range: { lower: after, lowerOpen: true } }), limit: 1 });
          if (!next) break;
          ids.add((after = String(next.key)));
        }
        for (const id of await leasedImports(tx)) ids.add(id);
        return Promise.all([...ids].map(async (importId) => ({ importId, lease: (await readSetting<ImportLease>(tx, `${LEASE_SETTING}${importId}`)) ?? null })));
      }),
  };
}
