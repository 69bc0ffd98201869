/**
 * What a configured classifier's verdicts do under each conflict policy. The classifier (seed
 * 002: CONTRADICTION | UPDATE | OVERLAP | NONE) only decides *whether* a new memory replaces an
 * existing one; the policy decides what happens then, as it does for every other conflict:
 *
 * - `ignore`: the classifier is not consulted;
 * - `warn`: each CONTRADICTION or UPDATE is reported in `conflicts`, nothing changes;
 * - `raise`: the write is refused (CONFLICT) before anything is stored;
 * - `review`: each waits in the review queue for the user (seed 003: contradictions are
 *   surfaced, never auto-resolved);
 * - `supersede`: the seed-002 resolution is applied (supersede, demote an old pin, inherit the
 *   higher importance) — the only policy under which the classifier changes existing memories.
 *
 * Pure: turns a classifier plan into the conflicts the policies act on.
 */
import type { IncomingPlan } from './conflicts.ts';
import type { Conflict, Memory } from '../types.ts';

/**
 * The conflicts a write reports: the detector's, with the classifier's CONTRADICTION/UPDATE
 * verdicts as conflicts (`a` the new memory, `b` the existing one, `kind: 'contradiction'`,
 * `reason` the classifier's label). Where both judged the same pair the classifier's verdict
 * wins: it is the more specific judge (an UPDATE is not a duplicate).
 */
export function withClassifierConflicts(incoming: Memory, plan: IncomingPlan, detected: readonly Conflict[]): Conflict[] {
  const judged: Conflict[] = [];
  for (const d of plan.decisions) {
    if (!d.resolution.supersedeOld || judged.some((c) => c.b.id === d.existing.id)) continue;
    judged.push({ a: incoming, b: d.existing, similarity: Math.round(d.similarity * 10_000) / 10_000, kind: 'contradiction', reason: d.classification });
  }
  const overridden = new Set(judged.map((c) => c.b.id));
  return [...detected.filter((c) => !overridden.has(c.b.id)), ...judged];
}
