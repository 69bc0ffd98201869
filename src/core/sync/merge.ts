/**
 * Concurrent edits of one memory on two devices. CouchDB keeps every leaf revision and picks the
 * same winning one on every replica (its deterministic rule: the most edits, then the highest
 * revision id), so all devices converge without a protocol of ours. What the engine cannot know
 * is what a memory's fields mean; here, pure, is how the losers are folded in so that nothing is
 * silently lost:
 * - tags and links are sets: the winner gets the union of every leaf's (a tag added on one
 *   device and a link on the other both survive), up to the 100 tags a memory may hold (the
 *   winner's first, then the losers' in leaf order: a merged revision every device can read); a
 *   losing version whose tags did not all fit goes to the review queue, so none is lost unseen;
 * - the text (and with it the vector) is one value: the winner's stays, and every losing text
 *   that differs goes to the review queue as a version the person can restore;
 * - everything else (type, importance, supersede state, pin, trust, validity) is the winner's.
 */
import type { Link } from '../types.ts';
import { MAX_TAGS } from '../domain/validate.ts';
import type { SyncedMemory } from './document.ts';

export interface RevisionMerge {
  /** The winner with the losers' tags and links added; null when the winner already holds them. */
  merged: SyncedMemory | null;
  /** Losing versions whose text differs from the winner's (one per distinct text), oldest leaf order kept. */
  review: SyncedMemory[];
}

const linkKey = (link: Link): string => `${link.rel}\u0000${link.to}`;

export function mergeRevisions(winner: SyncedMemory, losers: readonly SyncedMemory[]): RevisionMerge {
  const tags = [...winner.tags];
  const seenTags = new Set(tags);
  const links = [...winner.links];
  const seenLinks = new Set(links.map(linkKey));
  const review: SyncedMemory[] = [];
  const seenTexts = new Set([winner.text]);
  for (const loser of losers) {
    let dropped = false;
    for (const tag of loser.tags) {
      if (seenTags.has(tag)) continue;
      if (tags.length >= MAX_TAGS) {
        dropped = true;
        continue;
      }
      seenTags.add(tag);
      tags.push(tag);
    }
    // A link to the memory itself cannot exist; one the winner superseded away stays away only if no leaf keeps it.
    for (const link of loser.links) {
      const key = linkKey(link);
      if (!seenLinks.has(key) && link.to !== winner.id) (seenLinks.add(key), links.push({ to: link.to, rel: link.rel }));
    }
    if (!seenTexts.has(loser.text) || dropped) {
      seenTexts.add(loser.text);
      review.push(structuredClone(loser));
    }
  }
  const changed = tags.length !== winner.tags.length || links.length !== winner.links.length;
  return { merged: changed ? { ...structuredClone(winner), tags, links } : null, review };
}
