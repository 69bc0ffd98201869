/**
 * What in a store needs a person's attention, and what is only worth knowing — as lists of
 * memory ids, so every count can open the memories it counts. Pure: the caller passes the
 * memories, the review queue and the potential-conflict flags from the health analysis.
 *
 * The health statuses (health.ts) follow seed 004, where a memory without links is an `orphan`;
 * in this store links are optional (most memories have none, and an import of 10,000 has none),
 * so an unlinked memory is information, not a problem. Needing attention:
 *
 * - `review`: in a conflict waiting in the review queue (stored under the 'review' policy);
 * - `possible_conflicts`: soft flags (same domain, high concept overlap), worth a look;
 * - `fading`: decay pruning will move it to the trash (score below `minScore`, not pinned, not a
 *   protected type) — attention only while decay pruning is on; with it off (the default) this
 *   is information;
 * - `expired`: past its `expiresAt`, hidden from recall, waiting for the TTL purge;
 * - `broken_links`: links to a memory that is not in the store.
 *
 * For information: `stale` (not accessed in `staleDays`), `never_recalled`, `unlinked`,
 * `superseded` (version history, kept for audit).
 */
import { isExpired, pruneCandidates, SECONDS_PER_DAY, type DecayOptions } from './decay.ts';
import type { Memory } from '../types.ts';

export const ATTENTION_LISTS = ['review', 'possible_conflicts', 'fading', 'expired', 'broken_links'] as const;
export const INFO_LISTS = ['stale', 'never_recalled', 'unlinked', 'superseded'] as const;
export type HealthListKey = (typeof ATTENTION_LISTS)[number] | (typeof INFO_LISTS)[number];

export interface HealthLists {
  /** Memory ids per list, newest first. */
  lists: Record<HealthListKey, string[]>;
  /** The lists that need attention here (`fading` only while decay pruning is on). */
  attention: HealthListKey[];
  /** Distinct memories in the attention lists. */
  needsAttention: number;
}

export interface HealthListOptions {
  now: number;
  staleDays: number;
  /** Ids in a pending review conflict. */
  pending: ReadonlySet<string> | ReadonlyMap<string, number>;
  /** Ids with a potential (soft) conflict. */
  potential: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  decay?: DecayOptions;
  /** Decay pruning runs (maintenance): fading memories will go to the trash. Default true. */
  pruning?: boolean;
}

export function healthLists(memories: readonly Memory[], options: HealthListOptions): HealthLists {
  const { now } = options;
  const byNewest = [...memories].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = new Set(memories.map((m) => m.id));
  const incoming = new Set<string>();
  for (const m of memories) for (const l of m.links) incoming.add(l.to);
  const current = byNewest.filter((m) => !m.supersededBy);
  const active = current.filter((m) => !isExpired(m, now));
  const fading = new Set(pruneCandidates(active, now, options.decay ?? {}).map((s) => s.memory.id));
  const staleBefore = now - options.staleDays * SECONDS_PER_DAY;
  const lists: Record<HealthListKey, string[]> = {
    review: current.filter((m) => options.pending.has(m.id)).map((m) => m.id),
    possible_conflicts: active.filter((m) => options.potential.has(m.id)).map((m) => m.id),
    fading: active.filter((m) => fading.has(m.id)).map((m) => m.id),
    expired: current.filter((m) => isExpired(m, now)).map((m) => m.id),
    broken_links: current.filter((m) => m.links.some((l) => !ids.has(l.to))).map((m) => m.id),
    stale: active.filter((m) => (m.lastAccessed || m.createdAt) < staleBefore).map((m) => m.id),
    never_recalled: active.filter((m) => m.accessCount === 0).map((m) => m.id),
    unlinked: active.filter((m) => m.links.length === 0 && !incoming.has(m.id)).map((m) => m.id),
    superseded: byNewest.filter((m) => m.supersededBy).map((m) => m.id),
  };
  const attention = ATTENTION_LISTS.filter((key) => key !== 'fading' || options.pruning !== false);
  const flagged = new Set<string>();
  for (const key of attention) for (const id of lists[key]) flagged.add(id);
  return { lists, attention, needsAttention: flagged.size };
}
