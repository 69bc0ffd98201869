/**
 * The current truth first, pure: which of two memories about one changed fact is current, and how
 * recall ranks a current memory above the memories it replaced.
 *
 * A memory is outdated by another when the other updates it (an `updates` link, written when
 * `remember` finds the same attribute with a new value, under every conflict policy) or supersedes
 * it (`supersededBy`, hidden from recall by default). The later event time (`createdAt`) is the
 * current one; at a tie, the later write.
 *
 * Recall hands every candidate's successors here: a current memory takes the score and the badge
 * of the best memory it outdates that the question found (the old fact's words matched; the new
 * fact answers the same question), a little above it, so it always ranks first of the two; a
 * successor the question did not reach is brought in the same way. An outdated memory that stays
 * visible says by whom (`outdatedBy`).
 */
import type { Confidence } from './confidence.ts';
import type { Memory } from '../types.ts';
import { trustRank } from './trust.ts';

/** The relation from a current memory to a memory it updates (`current → outdated`). */
export const UPDATES_REL = 'updates';

/** How far a chain of updates is followed in one recall (A → B → C → …). */
export const MAX_SUCCESSION = 4;

/** How far above the memory it outdates a current one ranks: a tie-breaker, not a signal. */
export const CURRENT_MARGIN = 1e-6;

export const OUTDATED_CHOICES = ['keep', 'hide'] as const;
export type OutdatedChoice = (typeof OUTDATED_CHOICES)[number];

/** Of two memories about one changed fact, which is current: the later event, else the later write (`b`, the newer write, on a tie). */
export function currentOf<M extends Pick<Memory, 'createdAt'>>(a: M, b: M): { current: M; outdated: M } {
  return a.createdAt > b.createdAt ? { current: a, outdated: b } : { current: b, outdated: a };
}

/** Whether `current` may outdate `outdated`: never when it is less trusted (trusted < reported < untrusted). */
export function mayOutdate(current: Pick<Memory, 'trust'>, outdated: Pick<Memory, 'trust'>): boolean {
  return trustRank(current.trust) <= trustRank(outdated.trust);
}

const BANDS: readonly (Confidence | undefined)[] = [undefined, 'none', 'weak', 'strong'];

/** What lifting needs of a hit. */
export interface LiftableHit {
  memory: Pick<Memory, 'id'>;
  score: number;
  confidence?: Confidence;
  relevance?: number;
}

export interface Lifted<H> {
  /** The hits, best score first, the stand-ins for hidden memories removed. */
  hits: H[];
  /** For each lifted hit, the memories it outdates that carried it. */
  currentOf: Map<string, string[]>;
}

/**
 * Ranks each hit's successors above it. `successors` maps a memory to the live memories that
 * outdate it; `bring(id, from)` makes a hit for a successor the candidates do not hold (or
 * undefined when it may not be returned: filtered out, gone); `hidden` are candidates scored only
 * to pass their score on (superseded memories) and are dropped from the result. A successor takes
 * `max(its score, outdated's score + margin)`, the better badge and relevance of the two. Chains
 * are followed up to {@link MAX_SUCCESSION} steps. The input hits are mutated in place.
 */
export function liftCurrent<H extends LiftableHit>(
  hits: readonly H[],
  successors: ReadonlyMap<string, readonly string[]>,
  bring: (id: string, from: H) => H | undefined,
  hidden: ReadonlySet<string> = new Set(),
): Lifted<H> {
  const byId = new Map(hits.map((h) => [h.memory.id, h]));
  const carried = new Map<string, Set<string>>();
  if (successors.size > 0) {
    for (let round = 0; round < MAX_SUCCESSION; round++) {
      let changed = false;
      // Best first, so a chain settles in as few rounds as it has steps.
      for (const outdated of [...byId.values()].sort((a, b) => b.score - a.score)) {
        for (const id of successors.get(outdated.memory.id) ?? []) {
          if (id === outdated.memory.id) continue;
          let current = byId.get(id);
          if (!current) {
            current = bring(id, outdated);
            if (!current) continue;
            byId.set(id, current);
            changed = true;
          }
          const by = carried.get(id) ?? new Set<string>();
          carried.set(id, by.add(outdated.memory.id));
          if (current.score <= outdated.score) {
            current.score = outdated.score + CURRENT_MARGIN;
            changed = true;
          }
          if (BANDS.indexOf(outdated.confidence) > BANDS.indexOf(current.confidence)) {
            current.confidence = outdated.confidence!;
            changed = true;
          }
          if (outdated.relevance !== undefined && (current.relevance === undefined || current.relevance < outdated.relevance)) current.relevance = outdated.relevance;
        }
      }
      if (!changed) break;
    }
  }
  const out = [...byId.values()].filter((h) => !hidden.has(h.memory.id)).sort((a, b) => b.score - a.score);
  return { hits: out, currentOf: new Map([...carried].filter(([id]) => !hidden.has(id)).map(([id, by]) => [id, [...by].sort()])) };
}
