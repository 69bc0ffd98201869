/**
 * Contested memories: a recalled memory another memory says the opposite of, with nothing settled
 * yet — a `contradicts` link either way (the person chose "keep both"), or a contradiction or
 * update waiting in review (an update that already marked one side outdated is not: recall ranks
 * the current side first and says `outdatedBy`). Recall reports it on the hit (`contestedBy`), so an answer that looks
 * settled says when it is not. A pair whose other memory is gone or superseded is settled.
 */
import type { MemoryStorage } from '../ports.ts';
import { KEEP_BOTH_REL } from '../domain/review.ts';
import { UPDATES_REL } from '../domain/current.ts';
import type { Memory } from '../types.ts';

/** What it reads: links both ways, the review queue, and the other memories (to drop settled pairs). */
export type ContestedReader = Pick<MemoryStorage, 'incoming' | 'incomingMany' | 'listConflicts' | 'getMany'>;

/** For each memory, the ids of the live memories that contest it (empty when none), in a stable order. */
export async function contestedBy(storage: ContestedReader, memories: readonly Memory[]): Promise<Map<string, string[]>> {
  const others = new Map<string, Set<string>>(memories.map((m) => [m.id, new Set<string>()]));
  if (memories.length === 0) return new Map();
  for (const m of memories) for (const l of m.links) if (l.rel === KEEP_BOTH_REL && l.to !== m.id) others.get(m.id)!.add(l.to);
  const ids = memories.map((m) => m.id);
  const [incoming, pending] = await Promise.all([
    storage.incomingMany ? storage.incomingMany(ids, KEEP_BOTH_REL) : Promise.all(ids.map(async (id) => [id, await storage.incoming(id)] as const)).then((entries) => new Map(entries)),
    storage.listConflicts('pending'),
  ]);
  for (const m of memories) {
    for (const l of incoming.get(m.id) ?? []) if (l.rel === KEEP_BOTH_REL && l.from !== m.id) others.get(m.id)!.add(l.from);
  }
  const updates: [string, string][] = [];
  for (const c of pending) {
    if (c.kind === 'duplicate') continue;
    others.get(c.newId)?.add(c.oldId);
    others.get(c.oldId)?.add(c.newId);
    if (c.kind === 'update') updates.push([c.newId, c.oldId]);
  }
  const otherIds = [...new Set([...others.values()].flatMap((s) => [...s]))];
  const live = otherIds.length ? await storage.getMany(otherIds) : new Map<string, Memory>();
  // An update waiting in review that already made one side outdated (an `updates` link) is not a
  // disagreement: the hit says `outdatedBy` instead (services/succession.ts).
  const byId = new Map<string, Memory>([...live, ...memories.map((m) => [m.id, m] as const)]);
  const updating = (from: string, to: string): boolean => byId.get(from)?.links.some((l) => l.to === to && l.rel === UPDATES_REL) ?? false;
  for (const [a, b] of updates) {
    if (!updating(a, b) && !updating(b, a)) continue;
    others.get(a)?.delete(b);
    others.get(b)?.delete(a);
  }
  const out = new Map<string, string[]>();
  for (const [id, set] of others) out.set(id, [...set].filter((o) => live.has(o) && live.get(o)!.supersededBy === '').sort());
  return out;
}
