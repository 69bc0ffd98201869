/** The vector log role: vectors by label, tombstones by generation, and re-embedding's staging. */
import { MemoryError } from '../errors.ts';
import type { VectorLog } from '../ports.ts';
import { firstPartRange, journal, leasedImports, requireMeta, ONE_CALL, type Run } from './tx.ts';
import type { ReadCache } from './read-cache.ts';
import { loadedVector, storedVector, type MemoryRow, type StagedRow, type TombstoneRow, type VectorRow } from './rows.ts';
import { MEMORIES } from './memory-table.ts';

export function vectorLog(run: Run, cache: ReadCache): VectorLog {
  return {
    vectorCount: () => run('vectorCount', 'r', ['vectors'], (tx) => tx.count('vectors'), ONE_CALL),

    async scanVectors(visit, options = {}) {
      const batchSize = options.batchSize ?? 2000;
      const after = options.afterGeneration;
      if (after !== undefined) {
        const rows = await run('scanVectors', 'r', ['vectors'], (tx) => tx.query<VectorRow>('vectors', { index: 'gen', range: { lower: after, lowerOpen: true } }), ONE_CALL);
        rows.sort((a, b) => a.label - b.label);
        for (let i = 0; i < rows.length; i += batchSize) {
          const batch = rows.slice(i, i + batchSize);
          await visit(batch.map((r) => r.label), batch.map((r) => loadedVector(r.vector)));
        }
        return;
      }
      // Keyset pages, a read each: memory stays bounded and no read waits on the visitor.
      let lastLabel = -1;
      for (;;) {
        const from = lastLabel;
        const batch = await run('scanVectors', 'r', ['vectors'], (tx) => tx.query<VectorRow>('vectors', { range: { lower: from, lowerOpen: true }, limit: batchSize }), ONE_CALL);
        if (batch.length === 0) break;
        await visit(batch.map((r) => r.label), batch.map((r) => loadedVector(r.vector)));
        lastLabel = batch[batch.length - 1]!.label;
      }
    },

    tombstonesAfter: (afterGeneration) =>
      run(
        'tombstonesAfter',
        'r',
        ['tombstones'],
        async (tx) => (await tx.query<TombstoneRow>('tombstones', { index: 'gen', range: { lower: afterGeneration, lowerOpen: true } })).map((t) => t.label),
        ONE_CALL,
      ),

    pruneTombstones: (upToGeneration) =>
      run('pruneTombstones', 'rw', ['tombstones'], async (tx) => {
        const keys = await tx.keys('tombstones', { index: 'gen', range: { upper: upToGeneration } });
        await tx.delete('tombstones', keys.map((k) => k.primaryKey));
      }),

    stageVectors: (entries, embedderId) =>
      run('stageVectors', 'rw', ['staged'], (tx) => tx.put('staged', entries.map((e): StagedRow => ({ embedderId, ...e, vector: storedVector(e.vector) })))),

    stagedIds: (embedderId) =>
      run('stagedIds', 'r', ['staged'], async (tx) => new Map((await tx.query<StagedRow>('staged', { range: firstPartRange(embedderId) })).map((row) => [row.id, row.contentHash])), ONE_CALL),

    commitStaged: (embedderId, dim, ctx) =>
      run('commitStaged', 'rw', ['meta', MEMORIES, 'vectors', 'tombstones', 'staged', 'journal'], async (tx) => {
        const importing = await leasedImports(tx);
        if (importing.length) {
          // A rollback would bring back rows with vectors of the old embedder.
          throw new MemoryError('BUSY', 'An import is in progress; re-embed when it has finished', { importId: importing[0] });
        }
        await journal(tx, ctx, [{ id: '*', before: null, after: null }]);
        const meta = await requireMeta(tx);
        const memories = await tx.query<MemoryRow>(MEMORIES);
        const staged = new Map((await tx.query<StagedRow>('staged', { range: firstPartRange(embedderId) })).map((s) => [s.id, s]));
        const missing = memories.filter((m) => staged.get(m.id)?.contentHash !== m.contentHash);
        if (missing.length > 0) {
          throw new MemoryError('EMBEDDER_MISMATCH', `${missing.length} memories have no staged vector`, {
            missing: missing.slice(0, 10).map((m) => m.id),
          });
        }
        const generation = meta.generation + 1;
        let label = meta.nextLabel;
        for (const table of ['vectors', 'tombstones', 'staged'] as const) await tx.delete(table, (await tx.keys(table)).map((k) => k.primaryKey));
        const rows: MemoryRow[] = [];
        const vectors: VectorRow[] = [];
        for (const memory of memories) {
          rows.push({ ...memory, label });
          vectors.push({ label, vector: staged.get(memory.id)!.vector, gen: generation });
          label += 1;
        }
        // Every label changes: the old rows go first (an id is a unique index).
        await tx.delete(MEMORIES, memories.map((m) => m.label));
        await tx.put(MEMORIES, rows);
        await tx.add('vectors', vectors);
        await tx.put('meta', [{ key: 'store', value: { ...meta, embedderId, dim, generation, nextLabel: label } }]);
        return { generation };
      }),

    vectorsOf: async (labels) => {
      const out = new Map<number, Float32Array>();
      const cached = cache.cachedVectors(labels);
      const missing = labels.filter((label, i) => {
        const stored = cached[i];
        // The caller's own array: a float32 row (from before v11) would otherwise be the cached one.
        if (stored) out.set(label, stored instanceof Float32Array ? stored.slice() : loadedVector(stored));
        return !stored;
      });
      if (missing.length === 0) return out;
      const epoch = cache.readEpoch;
      const rows = await run('vectorsOf', 'r', ['vectors'], (tx) => tx.getMany<VectorRow>('vectors', missing), ONE_CALL);
      cache.rememberVectors(rows, epoch);
      for (const row of rows) if (row) out.set(row.label, loadedVector(row.vector));
      return out;
    },
  };
}
