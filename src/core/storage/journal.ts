/** The journal role: entries written beside each change, read by seq, id, group or time, compacted whole calls at a time. */
import type { JournalEntry, JournalHorizon, JournalStore } from '../ports.ts';
import { fillCreated } from './journal-created.ts';
import { MEMORIES } from './memory-table.ts';
import { HORIZON_KEY, journal, readSetting, writeSetting, ONE_CALL, type Run } from './tx.ts';

const bySeq = (a: JournalEntry, b: JournalEntry): number => a.seq! - b.seq!;

export function journalStore(run: Run): JournalStore {
  return {
    journalRead: (query) =>
      run('journalRead', 'r', ['journal', MEMORIES], async (tx) => {
        let rows: JournalEntry[];
        if (query.seq !== undefined) rows = [await tx.get<JournalEntry>('journal', query.seq)].filter((e): e is JournalEntry => e !== undefined);
        else if (query.id !== undefined) rows = await tx.query<JournalEntry>('journal', { index: 'id', equals: query.id });
        else if (query.group !== undefined) rows = await tx.query<JournalEntry>('journal', { index: 'group', equals: query.group });
        else if (query.untilTs !== undefined) rows = await tx.query<JournalEntry>('journal', { index: 'ts', range: { upper: query.untilTs } });
        else if (query.afterTs !== undefined) rows = await tx.query<JournalEntry>('journal', { index: 'ts', range: { lower: query.afterTs, lowerOpen: true } });
        else if (query.newest !== undefined) rows = await tx.query<JournalEntry>('journal', { reverse: true, limit: query.newest });
        else rows = await tx.query<JournalEntry>('journal');
        // One memory's entries, the newest n, or all: every entry after each of them is here.
        const complete = query.id !== undefined || query.newest !== undefined || Object.values(query).every((v) => v === undefined);
        return fillCreated(tx, rows.sort(bySeq), complete);
      }, ONE_CALL),

    journalAfter: (afterSeq, limit) => run('journalAfter', 'r', ['journal'], (tx) => tx.query<JournalEntry>('journal', { range: { lower: afterSeq, lowerOpen: true }, limit }), ONE_CALL),

    journalKeys: (query) =>
      run('journalKeys', 'r', ['journal'], async (tx) => {
        const keys =
          'group' in query
            ? await tx.keys('journal', { index: 'group', equals: query.group })
            : await tx.keys('journal', { ...(query.belowSeq === undefined ? {} : { range: { upper: query.belowSeq, upperOpen: true } }), reverse: true, limit: query.limit });
        return keys.map((k) => k.primaryKey as number).sort((a, b) => b - a);
      }, ONE_CALL),

    journalAppend: (ctx, entries) => run('journalAppend', 'rw', ['journal'], (tx) => journal(tx, ctx, entries)),

    journalCompact: (query, ctx) =>
      run('journalCompact', 'rw', ['journal', 'meta', MEMORIES], async (tx) => {
        const previous = await readSetting<JournalHorizon>(tx, HORIZON_KEY);
        // The cut: below the oldest of the newest `keepLast` entries (compactions' own entries
        // not counted), and below the oldest entry written at or after `olderThanTs` (seq order,
        // so a clock that went back cannot punch holes).
        let cut = Number.POSITIVE_INFINITY;
        if (query.keepLast > 0) {
          const kept = await tx.query<JournalEntry>('journal', { reverse: true, limit: query.keepLast, filter: (e) => e.op !== 'compact' });
          if (kept.length < query.keepLast) return { removed: 0, horizon: previous ?? null };
          cut = kept[kept.length - 1]!.seq!;
        }
        for (const { primaryKey } of await tx.keys('journal', { index: 'ts', range: { lower: query.olderThanTs } })) cut = Math.min(cut, primaryKey as number);
        const below = await tx.query<JournalEntry>('journal', { range: { upper: cut, upperOpen: true } });
        const old = below.map((e) => ({ seq: e.seq!, group: e.group, ts: e.ts, id: e.id }));
        // A call whose entries straddle the cut stays whole, so undoing it still works.
        const straddling = new Set<string>();
        for (const group of new Set(old.map((e) => e.group))) {
          const [newest] = await tx.keys('journal', { index: 'group', equals: group, reverse: true, limit: 1 });
          if (newest !== undefined && (newest.primaryKey as number) >= cut) straddling.add(group);
        }
        const dropped = old.filter((e) => !straddling.has(e.group));
        if (dropped.length === 0) return { removed: 0, horizon: previous ?? null };
        // A creation kept with its call whose memory's next entry goes: it takes its memory whole
        // first, or it would read back as the memory after that dropped change.
        const lastDropped = new Map(dropped.map((e) => [e.id, e.seq]));
        const orphaned = below.filter((e) => e.created && straddling.has(e.group) && (lastDropped.get(e.id) ?? 0) > e.seq!);
        const whole = await fillCreated(tx, orphaned, false);
        await tx.delete('journal', dropped.map((e) => e.seq));
        if (whole.length) await tx.put('journal', whole);
        const horizon: JournalHorizon = {
          ts: dropped.reduce((max, e) => Math.max(max, e.ts), previous?.ts ?? Number.NEGATIVE_INFINITY),
          seq: dropped.reduce((max, e) => Math.max(max, e.seq + 1), previous?.seq ?? 0),
          compactedAt: ctx.ts,
        };
        await writeSetting(tx, HORIZON_KEY, horizon);
        await journal(tx, { ...ctx, meta: { ...ctx.meta, removed: dropped.length, horizonTs: horizon.ts } }, [{ id: '*', before: null, after: null }]);
        return { removed: dropped.length, horizon };
      }),

    journalHorizon: () => run('journalHorizon', 'r', ['meta'], async (tx) => (await readSetting<JournalHorizon>(tx, HORIZON_KEY)) ?? null, ONE_CALL),
  };
}
