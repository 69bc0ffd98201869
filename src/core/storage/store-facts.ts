/**
 * Small facts about the whole store that every recall asks and that rarely change, held beside
 * the read cache so that a recall does not pay a storage round trip for each (in Chromium, an
 * IndexedDB request costs 0.3–0.9 ms however little it reads: three of them were more than half
 * of a recall at 100,000 memories):
 *
 * - whether any memory has positive polarity (recall lifts them only then);
 * - which link relations the stored links use (recall's contested check looks for "keep both"
 *   links only when one exists);
 * - the review queue's pending records.
 *
 * Each is unknown (null) until read from storage, and kept by this store's own commits the safe
 * way: a write that could only add to a fact updates it, one that could take something away
 * makes it unknown again (read on the next ask). Another writer's commit drops everything with
 * the rest of the read cache (read-cache.ts says when that is noticed).
 */
import type { PendingConflict } from '../domain/review.ts';
import type { Change } from './recording-tx.ts';

/**
 * Rows with links read at most to learn which relations are used; a store with more is taken to
 * use them all (its contested check asks storage every time, as before these facts).
 */
export const LINK_SCAN_ROWS = 2_000;
/** Entries of the link-target index read to find those rows (keys only): a row is there once per target, up to 10,000. */
export const LINK_SCAN_ENTRIES = 32_000;

/** Which relations the stored links use, or `'many'` when there were too many rows to look. */
export type LinkRelations = ReadonlySet<string> | 'many';

export class StoreFacts {
  positive: boolean | null = null;
  linkRelations: LinkRelations | null = null;
  private pendingConflicts: PendingConflict[] | null = null;

  /** The pending review records, as copies a caller may change. */
  get pending(): PendingConflict[] | null {
    return this.pendingConflicts && structuredClone(this.pendingConflicts);
  }

  set pending(records: PendingConflict[] | null) {
    this.pendingConflicts = records && structuredClone(records);
  }

  /** What one committed change of this store does to the facts. */
  note(change: Change): void {
    if ('row' in change) {
      const { row } = change;
      // A row written positive makes it so; any other row may have been the last positive one.
      if (row.positive === 1) this.positive = true;
      else if (this.positive === true) this.positive = null;
      // Relations only grow here (a link taken away leaves its relation listed: a needless read later, never a missed one).
      const known = this.linkRelations;
      if (known instanceof Set && row.links.some((l) => !known.has(l.rel))) this.linkRelations = new Set([...known, ...row.links.map((l) => l.rel)]);
    } else if ('gone' in change) {
      // It may have been the last positive one (a relation listed too many is harmless, above).
      if (this.positive === true) this.positive = null;
    } else if ('conflicts' in change) this.pendingConflicts = null;
  }

  clear(): void {
    this.positive = null;
    this.linkRelations = null;
    this.pendingConflicts = null;
  }
}
