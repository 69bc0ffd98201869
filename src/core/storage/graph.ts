/** The graph role: links, supersede state and the review queue's records. */
import { MemoryError } from '../errors.ts';
import type { GraphChanges, GraphStore } from '../ports.ts';
import type { PendingConflict } from '../domain/review.ts';
import { MEMORIES, rowById, rowsById } from './memory-table.ts';
import type { ReadCache } from './read-cache.ts';
import { isDefined, rowOf, strip, type MemoryRow } from './rows.ts';
import { LINK_SCAN_ENTRIES, LINK_SCAN_ROWS, type LinkRelations } from './store-facts.ts';
import { deleteRows, journal, refuseHeld, requireMeta, ONE_CALL, type Run } from './tx.ts';

export function graphStore(run: Run, cache: ReadCache): GraphStore {
  /** Which relations the stored links use: one bounded read, then kept (store-facts.ts). */
  const linkRelations = (): Promise<LinkRelations> =>
    cache.fact(
      cache.facts.linkRelations,
      () =>
        run('linkRelations', 'r', [MEMORIES], async (tx) => {
          // The index holds a row once per link target: its keys first, then each row once (a
          // memory with 10,000 links was read 2,000 times here, on the first recall after every
          // open: 38–61 s, #49 repro-links-reopen).
          const entries = await tx.keys(MEMORIES, { index: 'linkTargets', limit: LINK_SCAN_ENTRIES });
          const labels = [...new Set(entries.map((e) => e.primaryKey))];
          // Stopped at its limit, or too many rows: rows past it were not seen.
          if (entries.length >= LINK_SCAN_ENTRIES || labels.length >= LINK_SCAN_ROWS) return 'many';
          const rows = (await tx.getMany<MemoryRow>(MEMORIES, labels)).filter(isDefined);
          return new Set(rows.flatMap((row) => row.links.map((l) => l.rel)));
        }, ONE_CALL),
      (relations) => (cache.facts.linkRelations = relations),
    );

  return {
    incoming: (id) =>
      run('incoming', 'r', [MEMORIES], async (tx) => {
        const out: { from: string; rel: string }[] = [];
        for (const row of await tx.query<MemoryRow>(MEMORIES, { index: 'linkTargets', equals: id })) {
          for (const link of row.links) if (link.to === id) out.push({ from: row.id, rel: link.rel });
        }
        return out;
      }, ONE_CALL),

    incomingMany: async (ids, rel) => {
      // No stored link has the relation: nothing to read.
      if (rel !== undefined) {
        const relations = await linkRelations();
        if (relations !== 'many' && !relations.has(rel)) return new Map();
      }
      return run('incomingMany', 'r', [MEMORIES], async (tx) => {
        const wanted = new Set(ids);
        const out = new Map<string, { from: string; rel: string }[]>();
        // One index read for every target; a row linking to several of them comes once per target.
        const rows = new Map((await tx.query<MemoryRow>(MEMORIES, { index: 'linkTargets', anyOf: [...wanted] })).map((row) => [row.id, row]));
        for (const row of rows.values()) {
          for (const link of row.links) {
            if (wanted.has(link.to) && (rel === undefined || link.rel === rel)) out.set(link.to, [...(out.get(link.to) ?? []), { from: row.id, rel: link.rel }]);
          }
        }
        return out;
      }, ONE_CALL);
    },

    pinMoved: (id) => run('pinMoved', 'r', [MEMORIES], async (tx) => (await rowById(tx, id))?.pinMoved === true, ONE_CALL),

    applyGraphChanges: (changes: GraphChanges, ctx) =>
      run('applyGraphChanges', 'rw', ['meta', MEMORIES, 'vectors', 'tombstones', 'conflicts', 'journal', 'importUndo'], async (tx) => {
        const put = changes.put ?? [];
        const [current] = await Promise.all([rowsById(tx, put.map((m) => m.id)), refuseHeld(tx, [...put.map((m) => m.id), ...(changes.forget ?? [])])]);
        const missing = put.filter((_, i) => !current[i]).map((m) => m.id);
        if (missing.length) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(missing[0])}`, { id: missing[0] });
        for (const [i, memory] of put.entries()) {
          const row = current[i]!;
          if (row.text !== memory.text) throw new MemoryError('INVALID_ARGUMENT', 'Graph changes cannot change text', { id: memory.id });
          await journal(tx, ctx, [{ id: memory.id, before: strip(row), after: memory }]);
          await tx.put(MEMORIES, [rowOf(memory, row.label, changes.pinMoved?.[memory.id] ?? row.pinMoved)]);
        }
        let removedLabels: number[] = [];
        let generation = (await requireMeta(tx)).generation;
        if (changes.forget?.length) {
          const rows = (await rowsById(tx, changes.forget)).filter(isDefined);
          await journal(tx, ctx, rows.map((r) => ({ id: r.id, before: strip(r), after: null, op: 'forget' })));
          ({ generation, removedLabels } = await deleteRows(tx, rows));
        }
        if (changes.conflicts?.length) await tx.put('conflicts', changes.conflicts);
        return { added: [], removedLabels, generation };
      }),

    listConflicts: (status) => {
      const read = () =>
        run(
          'listConflicts',
          'r',
          ['conflicts'],
          async (tx) => (await tx.query<PendingConflict>('conflicts', status ? { index: 'status', equals: status } : {})).sort((a, b) => a.createdAt - b.createdAt),
          ONE_CALL,
        );
      // The pending records are asked by every recall (its contested check): kept until the queue changes.
      return status === 'pending' ? cache.fact(cache.facts.pending, read, (records) => (cache.facts.pending = records)) : read();
    },

    getConflict: (id) => run('getConflict', 'r', ['conflicts'], (tx) => tx.get<PendingConflict>('conflicts', id), ONE_CALL),
  };
}
