/**
 * Creations stored without their memory (journal-patch.ts, `compactEntry`) read back whole: what
 * a creation made is the `before` of the memory's next entry, or the memory as it is now when no
 * entry came after. Read inside the reading transaction, so the journal and the rows agree.
 */
import { createdState } from '../domain/journal-patch.ts';
import type { JournalEntry } from '../ports.ts';
import { rowsById } from './memory-table.ts';
import type { StorageTx } from './port.ts';
import { strip } from './rows.ts';

/**
 * Scanning every entry from the oldest creation on beats one index read per memory up to this
 * many entries per memory (a bulk call just written: its own entries, and few after).
 */
const SCAN_PER_MEMORY = 4;

/**
 * The entries that may follow `created` for their memories: `entries` itself when it is
 * `complete` (it holds every entry after each of its own: the newest n, or one memory's), else
 * read — one range scan from the oldest creation, or one index read per memory.
 */
async function laterCandidates(tx: StorageTx, entries: readonly JournalEntry[], created: readonly JournalEntry[], ids: readonly string[], complete: boolean): Promise<readonly JournalEntry[]> {
  if (complete) return entries;
  const since = Math.min(...created.map((e) => e.seq!));
  const [newest] = await tx.keys('journal', { reverse: true, limit: 1 });
  const span = (newest?.primaryKey as number | undefined ?? since) - since;
  if (span <= ids.length * SCAN_PER_MEMORY) return tx.query<JournalEntry>('journal', { range: { lower: since, lowerOpen: true } });
  return (await Promise.all(ids.map((id) => tx.query<JournalEntry>('journal', { index: 'id', equals: id })))).flat();
}

/**
 * `entries` with each stored creation's `after` filled in (a copy of each such entry). One whose
 * memory cannot be recovered (gone with no later entry saying what it was) keeps `created`.
 */
export async function fillCreated(tx: StorageTx, entries: JournalEntry[], complete: boolean): Promise<JournalEntry[]> {
  const created = entries.filter((e) => e.created && e.after === null);
  if (created.length === 0) return entries;
  const ids = [...new Set(created.map((e) => e.id))];
  const [rows, candidates] = await Promise.all([rowsById(tx, ids), laterCandidates(tx, entries, created, ids, complete)]);
  const now = new Map(ids.map((id, i) => [id, rows[i] ? strip(rows[i]!) : null]));
  const byId = new Map<string, JournalEntry[]>();
  for (const e of candidates) {
    if (!now.has(e.id)) continue;
    const list = byId.get(e.id);
    if (list) list.push(e);
    else byId.set(e.id, [e]);
  }
  return entries.map((e) => {
    if (!e.created || e.after !== null) return e;
    const after = createdState((byId.get(e.id) ?? []).filter((x) => x.seq! > e.seq!), now.get(e.id) ?? null);
    if (!after) return e;
    const { created: _created, ...rest } = e;
    return { ...rest, after };
  });
}
