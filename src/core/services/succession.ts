/**
 * Succession: for a set of memories, the memories that outdate them (a superseder, or a memory with
 * an `updates` link to them), read from storage a step at a time up to the chain's bound. Recall
 * uses it to rank the current memory first (domain/current.ts) and to say which hits are outdated.
 * A store where nothing was ever updated or superseded reads nothing here (the link relation
 * fact answers `incomingMany` without a read).
 */
import { mayOutdate, MAX_SUCCESSION, UPDATES_REL } from '../domain/current.ts';
import type { MemoryStorage } from '../ports.ts';
import type { Memory } from '../types.ts';

export type SuccessionReader = Pick<MemoryStorage, 'incoming' | 'incomingMany' | 'getMany'>;

export interface Succession {
  /** Memory id → the ids of the stored memories that outdate it directly (superseded ones too). */
  successors: Map<string, string[]>;
  /** Every memory read on the way (the successors, for recall to bring in). */
  memories: Map<string, Memory>;
}

async function updatersOf(storage: SuccessionReader, ids: string[]): Promise<Map<string, { from: string; rel: string }[]>> {
  if (ids.length === 0) return new Map();
  if (storage.incomingMany) return storage.incomingMany(ids, UPDATES_REL);
  return new Map(await Promise.all(ids.map(async (id) => [id, (await storage.incoming(id)).filter((l) => l.rel === UPDATES_REL)] as const)));
}

/** The successors of `memories` and of their successors, up to {@link MAX_SUCCESSION} steps. */
export async function successionOf(storage: SuccessionReader, memories: readonly Memory[]): Promise<Succession> {
  const known = new Map(memories.map((m) => [m.id, m]));
  const successors = new Map<string, string[]>();
  let frontier = [...known.values()];
  for (let step = 0; step < MAX_SUCCESSION && frontier.length > 0; step++) {
    const incoming = await updatersOf(storage, frontier.map((m) => m.id));
    const wanted = new Set<string>();
    for (const m of frontier) {
      const ids = new Set<string>();
      if (m.supersededBy !== '') ids.add(m.supersededBy);
      for (const l of incoming.get(m.id) ?? []) if (l.from !== m.id) ids.add(l.from);
      if (ids.size === 0) continue;
      successors.set(m.id, [...ids]);
      for (const id of ids) if (!known.has(id)) wanted.add(id);
    }
    const read = wanted.size ? await storage.getMany([...wanted]) : new Map<string, Memory>();
    for (const [id, m] of read) known.set(id, m);
    frontier = [...read.values()];
  }
  // A successor that is gone (forgotten) outdates nothing; nor does an `updates` link from a less
  // trusted memory (one that came by import or sync): only a supersede, a person's act, may.
  for (const [id, ids] of successors) {
    const m = known.get(id)!;
    const present = ids.filter((s) => known.has(s) && (m.supersededBy === s || mayOutdate(known.get(s)!, m))).sort();
    if (present.length) successors.set(id, present);
    else successors.delete(id);
  }
  return { successors, memories: known };
}

/**
 * The live memories that outdate `id`: its direct successors, a superseded one replaced by its own
 * live successors (the end of each chain), in a stable order.
 */
export function outdatedBy(succession: Succession, id: string): string[] {
  const out = new Set<string>();
  const seen = new Set<string>([id]);
  let frontier = succession.successors.get(id) ?? [];
  for (let step = 0; step < MAX_SUCCESSION && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const s of frontier) {
      if (seen.has(s)) continue;
      seen.add(s);
      const m = succession.memories.get(s);
      if (!m) continue;
      if (m.supersededBy === '') out.add(s);
      else next.push(...(succession.successors.get(s) ?? []));
    }
    frontier = next;
  }
  return [...out].sort();
}
