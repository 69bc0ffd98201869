/**
 * Recall's "current truth first" step, between scoring and selection: read who outdates the
 * candidates (services/succession.ts), bring in the current memory of a fact the question found
 * only in an older wording, rank each current memory above what it outdates (domain/current.ts),
 * and say on each hit which memories outdate it. Superseded candidates (hidden by default) are
 * scored only to pass their score on, then dropped.
 */
import { liftCurrent } from '../domain/current.ts';
import type { ScoredHit } from '../domain/scoring-types.ts';
import type { MemoryStorage } from '../ports.ts';
import { outdatedBy, successionOf } from '../services/succession.ts';
import { cosineFrom } from '../domain/vector-math.ts';
import type { Memory } from '../types.ts';

export interface CurrentFirst<H> {
  hits: H[];
  /** Hit id → the live memories that outdate it (absent when none). */
  outdated: Map<string, string[]>;
}

export interface CurrentFirstOptions {
  /** The recall's filters: a successor they refuse is not brought in. */
  accept: (m: Memory) => boolean;
  /** The recall's filters without the superseded one: a superseded successor passes its score on. */
  acceptHidden: (m: Memory) => boolean;
  /** Candidates scored only to pass their score on (superseded ones). */
  hidden: Set<string>;
  query: Float32Array;
  explain: boolean;
}

export async function currentFirst(
  storage: Pick<MemoryStorage, 'incoming' | 'incomingMany' | 'getMany' | 'labelsOf' | 'vectorsOf'>,
  scored: ScoredHit[],
  o: CurrentFirstOptions,
): Promise<CurrentFirst<ScoredHit>> {
  const succession = await successionOf(storage, scored.map((h) => h.memory));
  if (succession.successors.size === 0) return { hits: scored.filter((h) => !o.hidden.has(h.memory.id)), outdated: new Map() };
  const present = new Set(scored.map((h) => h.memory.id));
  const outside = [...succession.memories.values()].filter((m) => !present.has(m.id) && (o.accept(m) || (m.supersededBy !== '' && o.acceptHidden(m))));
  const labels = await storage.labelsOf(outside.map((m) => m.id));
  const vectors = await storage.vectorsOf(labels.filter((l): l is number => l !== undefined));
  const toQuery = cosineFrom(o.query);
  const cosineOf = new Map<string, number>();
  outside.forEach((m, i) => {
    const v = labels[i] === undefined ? undefined : vectors.get(labels[i]!);
    if (v) cosineOf.set(m.id, toQuery(v));
  });
  const before = new Map(scored.map((h) => [h.memory.id, h.score]));
  const lifted = liftCurrent(
    scored,
    succession.successors,
    (id, from) => {
      const memory = succession.memories.get(id);
      const cosine = cosineOf.get(id);
      if (!memory || cosine === undefined) return undefined;
      if (memory.supersededBy !== '') o.hidden.add(id);
      const hit: ScoredHit = { memory, score: from.score, cosine };
      if (o.explain) hit.explain = { mode: from.explain?.mode ?? 'hybrid', score: 0, signals: [], breakdown: { brought_in: true } };
      return hit;
    },
    o.hidden,
  );
  const outdated = new Map<string, string[]>();
  for (const h of lifted.hits) {
    const by = outdatedBy(succession, h.memory.id);
    if (by.length) outdated.set(h.memory.id, by);
    if (!h.explain) continue;
    h.explain.score = h.score;
    const of = lifted.currentOf.get(h.memory.id);
    if (of) h.explain.current = { of };
    // What the lift added, as a part of its own, so the parts still sum to the score.
    const added = h.score - (before.get(h.memory.id) ?? 0);
    if (of && added > 0) {
      h.explain.signals.push({ name: 'current', value: added, weight: 1, weighted: added, reason: 'The newer version of a memory the question found: ranked just above it', details: { of } });
      h.explain.breakdown['current'] = Math.round(added * 10_000) / 10_000;
    }
    if (by.length) h.explain.outdated = { by };
  }
  return { hits: lifted.hits, outdated };
}
