/** The memory rows role: memories with their vectors, written one transaction per call. */
import { sameState } from '../domain/undo-plan.ts';
import type { ListQuery, MemoryRows, StoredCounts } from '../ports.ts';
import { MEMORY_TYPES, type Memory } from '../types.ts';
import { MAX_KEY, MIN_KEY, type Key, type StorageEngine, type StorageTx } from './port.ts';
import { memoryOf, type ReadCache } from './read-cache.ts';
import { MEMORIES, rowById, rowsById } from './memory-table.ts';
import { derivedFields, isDefined, loadedVector, rowOf, storedVector, strip, type MemoryRow, type VectorRow } from './rows.ts';
import { bumpGeneration, deleteRows, dropVectors, journal, refuseHeld, requireMeta, ONE_CALL, type Run } from './tx.ts';

/**
 * Memory rows by label (undefined when absent): from the cache, and what it lacks through the
 * engine's fast path or one read transaction.
 */
export async function rowsByLabels(engine: StorageEngine, run: Run, cache: ReadCache, labels: readonly number[], operation = 'getByLabels'): Promise<(MemoryRow | undefined)[]> {
  const out = cache.cachedRows(labels);
  const missing = labels.filter((_, i) => out[i] === undefined);
  if (missing.length === 0) return out;
  const epoch = cache.readEpoch;
  const read = await run(operation, 'r', [MEMORIES], (tx) => tx.getMany<MemoryRow>(MEMORIES, missing), ONE_CALL);
  cache.remember(read, epoch);
  let next = 0;
  return out.map((row) => row ?? read[next++]);
}

/**
 * Where `list`'s cursor memory sits among the memories created at the same time: its label. When
 * it is gone (forgotten between two pages), every memory of that time is listed again: a page
 * may repeat rows the caller has, and none is skipped.
 */
async function cursorLabel(tx: StorageTx, id: string): Promise<Key> {
  // The id index's key alone: its primary key is the label, and the row need not be read.
  const [entry] = await tx.keys(MEMORIES, { index: 'id', equals: id, limit: 1 });
  return entry?.primaryKey ?? MAX_KEY;
}

export function memoryRows(engine: StorageEngine, run: Run, cache: ReadCache): MemoryRows {
  const WRITE = ['meta', MEMORIES, 'vectors', 'tombstones', 'journal', 'importUndo'] as const;
  return {
    insert: (memories, vectors, ctx) =>
      run('insert', 'rw', WRITE, async (tx) => {
        const rows = memories.map((m) => rowOf(m, 0));
        const length = rows.reduce((sum, r) => sum + r.termLength, 0);
        // Side by side: a refusal fails the transaction, and everything in it with it.
        const [{ meta, firstLabel }] = await Promise.all([bumpGeneration(tx, memories.length, { docs: memories.length, length }), refuseHeld(tx, memories.map((m) => m.id))]);
        const labels = memories.map((_, i) => firstLabel + i);
        rows.forEach((row, i) => (row.label = labels[i]!));
        await tx.add(MEMORIES, rows);
        const stored = vectors.map(storedVector);
        await tx.add('vectors', stored.map((vector, i): VectorRow => ({ label: labels[i]!, vector, gen: meta.generation })));
        await journal(tx, ctx, memories.map((m) => ({ id: m.id, before: null, after: m })));
        // The index gets what a rebuild from storage would give it: the stored precision.
        return { labels, added: labels.map((label, i) => ({ label, vector: loadedVector(stored[i]!) })), removedLabels: [], generation: meta.generation };
      }),

    replace: (expected, next, vector, ctx) =>
      run('replace', 'rw', WRITE, async (tx) => {
        const [current] = await Promise.all([rowById(tx, expected.id), refuseHeld(tx, [expected.id])]);
        if (!current || !sameState(strip(current), expected)) return null;
        await journal(tx, ctx, [{ id: next.id, before: strip(current), after: next }]);
        if (!vector) {
          await tx.put(MEMORIES, [rowOf(next, current.label, current.pinMoved)]);
          return { label: current.label, added: [], removedLabels: [], generation: (await requireMeta(tx)).generation };
        }
        const derived = derivedFields(next);
        const { meta, firstLabel } = await bumpGeneration(tx, 1, { docs: 0, length: derived.termLength - (current.termLength ?? 0) });
        await tx.delete(MEMORIES, [current.label]); // first: an id is a unique index
        await tx.put(MEMORIES, [rowOf(next, firstLabel)]);
        const stored = storedVector(vector);
        await dropVectors(tx, [current.label], meta.generation);
        await tx.add('vectors', [{ label: firstLabel, vector: stored, gen: meta.generation }]);
        return { label: firstLabel, removedLabel: current.label, added: [{ label: firstLabel, vector: loadedVector(stored) }], removedLabels: [current.label], generation: meta.generation };
      }),

    remove: (id, ctx) =>
      run('remove', 'rw', WRITE, async (tx) => {
        const [current] = await Promise.all([rowById(tx, id), refuseHeld(tx, [id])]);
        if (!current) return undefined;
        await journal(tx, ctx, [{ id, before: strip(current), after: null }]);
        const { generation, removedLabels } = await deleteRows(tx, [current]);
        return { memory: strip(current), label: current.label, added: [], removedLabels, generation };
      }),

    touch: (ids, now) =>
      run('touch', 'rw', [MEMORIES], async (tx) => {
        const updated = (await rowsById(tx, ids)).filter(isDefined).map((row) => ({ ...row, lastAccessed: now, accessCount: row.accessCount + 1 }));
        await tx.put(MEMORIES, updated);
        return updated.map(strip);
      }),

    get: (id) => run('get', 'r', [MEMORIES], async (tx) => {
      const row = await rowById(tx, id);
      return row ? strip(row) : undefined;
    }, ONE_CALL),

    getByLabels: async (labels) => {
      const out = new Map<number, Memory>();
      for (const row of await rowsByLabels(engine, run, cache, labels)) if (row) out.set(row.label, memoryOf(row));
      return out;
    },

    list: (query: ListQuery) =>
      run('list', 'r', [MEMORIES], async (tx) => {
        if (query.limit <= 0) return [];
        // Newest first by (createdAt, label), so a keyset cursor never skips rows sharing a time:
        // ties in write order, newest written first.
        const upper = query.before === undefined ? undefined : [query.before, query.beforeId === undefined ? MIN_KEY : await cursorLabel(tx, query.beforeId)];
        const rows = await tx.query<MemoryRow>(MEMORIES, {
          index: '[createdAt+label]',
          ...(upper ? { range: { upper, upperOpen: true } } : {}),
          reverse: true,
          limit: query.limit,
          filter: (m) => (query.includeSuperseded || m.supersededBy === '') && (query.includeExpired || m.expiresAt <= 0 || m.expiresAt > query.now),
        });
        return rows.map(strip);
      }, ONE_CALL),

    count: () => run('count', 'r', [MEMORIES], (tx) => tx.count(MEMORIES), ONE_CALL),

    counts: () =>
      run('counts', 'r', [MEMORIES], async (tx): Promise<StoredCounts> => {
        const total = await tx.count(MEMORIES);
        const superseded = await tx.count(MEMORIES, { index: 'superseded', range: { lower: '', lowerOpen: true } });
        const byType: Record<string, number> = {};
        for (const type of MEMORY_TYPES) byType[type] = await tx.count(MEMORIES, { index: 'type', equals: type });
        return { total, superseded, byType };
      }),

    aggregate: ({ includeSuperseded, createdEdges }) =>
      run('aggregate', 'r', [MEMORIES], async (tx) => {
        // Keys only: the tags index (multi-entry) and the (createdAt, label) index.
        const skip = includeSuperseded ? new Set<number>() : new Set((await tx.keys(MEMORIES, { index: 'superseded', range: { lower: '', lowerOpen: true } })).map((k) => k.primaryKey as number));
        const tagCounts = new Map<string, number>();
        for (const { key, primaryKey } of await tx.keys(MEMORIES, { index: 'tags' })) {
          if (!skip.has(primaryKey as number)) tagCounts.set(key as string, (tagCounts.get(key as string) ?? 0) + 1);
        }
        const created = new Array<number>(Math.max(0, createdEdges.length - 1)).fill(0);
        if (created.length) {
          const first = createdEdges[0]!;
          const last = createdEdges[createdEdges.length - 1]!;
          let bucket = 0;
          const range = { lower: [first, MIN_KEY], upper: [last, MIN_KEY], upperOpen: true };
          for (const { key, primaryKey } of await tx.keys(MEMORIES, { index: '[createdAt+label]', range })) {
            const [createdAt] = key as [number, number];
            if (skip.has(primaryKey as number)) continue;
            while (createdAt >= createdEdges[bucket + 1]!) bucket++; // keys arrive in ascending order
            created[bucket]!++;
          }
        }
        const total = await tx.count(MEMORIES);
        return { tagCounts, created, counted: total - skip.size };
      }),

    countExpired: (now) =>
      run('countExpired', 'r', [MEMORIES], async (tx) => (await tx.query<MemoryRow>(MEMORIES, { filter: (r) => !r.supersededBy && r.expiresAt > 0 && r.expiresAt <= now })).length, ONE_CALL),

    getMany: (ids) =>
      run('getMany', 'r', [MEMORIES], async (tx) => new Map((await rowsById(tx, ids)).filter(isDefined).map((r) => [r.id, strip(r)])), ONE_CALL),

    labelsOf: (ids) => run('labelsOf', 'r', [MEMORIES], async (tx) => (await rowsById(tx, ids)).map((r) => r?.label), ONE_CALL),

    exists: (ids) => run('exists', 'r', [MEMORIES], async (tx) => (await rowsById(tx, ids)).map((r) => r !== undefined), ONE_CALL),

    textsOf: (ids) => run('textsOf', 'r', [MEMORIES], async (tx) => (await rowsById(tx, ids)).map((r) => r?.text), ONE_CALL),

    allMemories: () => run('allMemories', 'r', [MEMORIES], async (tx) => (await tx.query<MemoryRow>(MEMORIES)).map(strip), ONE_CALL),

    async *pagesByCreated(batchSize = 500) {
      // The labels in createdAt order are one index read (small even at 100k); rows and vectors
      // then come a page at a time by primary key, so memory stays bounded by the page.
      const labels = (await run('pagesByCreated', 'r', [MEMORIES], (tx) => tx.keys(MEMORIES, { index: '[createdAt+label]' }), ONE_CALL)).map((k) => k.primaryKey);
      for (let i = 0; i < labels.length; i += batchSize) {
        const page = await run('pagesByCreated', 'r', [MEMORIES, 'vectors'], async (tx) => {
          const rows = (await tx.getMany<MemoryRow>(MEMORIES, labels.slice(i, i + batchSize))).filter(isDefined);
          const vectors = await tx.getMany<VectorRow>('vectors', rows.map((r) => r.label));
          return rows.map((r, j) => {
            const stored = vectors[j]?.vector;
            return { memory: strip(r), vector: stored && loadedVector(stored) };
          });
        });
        if (page.length) yield page;
      }
    },

    // An equality lookup: a range like above(0) walks the whole index in fake-indexeddb (11 ms at 100k, against 0.06 ms).
    hasPositivePolarity: () =>
      cache.fact(
        cache.facts.positive,
        () => run('hasPositivePolarity', 'r', [MEMORIES], async (tx) => (await tx.keys(MEMORIES, { index: 'positive', equals: 1, limit: 1 })).length > 0, ONE_CALL),
        (positive) => (cache.facts.positive = positive),
      ),

    ids: () =>
      run('ids', 'r', [MEMORIES], async (tx) => (await tx.query<MemoryRow>(MEMORIES)).map((m) => ({ id: m.id, text: m.text, contentHash: m.contentHash })), ONE_CALL),
  };
}

