/**
 * The conflict review queue, pure: the pending-conflict record, its validation, and the plan of
 * mutations each user resolution implies. Seed 003: contradictions are surfaced to the user ("this
 * fact contradicts X — supersede, keep both, or drop new?") and never auto-resolved; the store
 * records them under the `review` conflict policy (see `decidePolicy` in `conflicts.ts`) and
 * persists these records.
 */
import { invalid } from '../errors.ts';
import { checkRel } from './graph.ts';
import { UPDATES_REL } from './current.ts';
import { checkId, checkTimestamp } from './validate.ts';
import { checkRecord, vectorProblem } from './record.ts';
import type { Conflict, Memory } from '../types.ts';
import type { ConflictKind } from './conflicts.ts';

/** The user's answers (seed 003): supersede the old memory, keep both, or drop the new one. */
export const REVIEW_RESOLUTIONS = ['supersede', 'keep_both', 'drop_new'] as const;
export type ReviewResolution = (typeof REVIEW_RESOLUTIONS)[number];

export const REVIEW_STATUSES = ['pending', 'resolved'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** One conflict waiting for (or given) a user decision. Plain, structured-clonable data. */
export interface PendingConflict {
  id: string;
  /** The memory whose write raised the conflict. */
  newId: string;
  /** The existing memory it conflicts with. */
  oldId: string;
  kind: ConflictKind;
  /** `polarity_diff`, `negation_diff`, `custom_fn`, `similarity`, or a classifier's label. */
  reason: string;
  /** Cosine of the pair, 4 dp. */
  similarity: number;
  /** Unix seconds. */
  createdAt: number;
  status: ReviewStatus;
  resolution?: ReviewResolution;
  resolvedAt?: number;
  /**
   * The new side when it is not a memory yet: a sync conflict's losing edit, held in the queue
   * until the person decides (#31). It is not recalled, counted or listed; `supersede` and
   * `keep_both` store it (with its vector when it was made by the store's model), `drop_new`
   * lets it go. Absent once resolved.
   */
  proposed?: ProposedMemory;
}

/** A memory waiting in the review queue, with the vector it came with and the model that made it. */
export interface ProposedMemory {
  memory: Memory;
  vector?: Float32Array;
  model?: string;
}

/** A store mutation a resolution implies, in the order to apply them (one transaction). */
export type ReviewMutation =
  | { type: 'insert'; proposed: ProposedMemory }
  | { type: 'supersede'; oldId: string; newId: string }
  | { type: 'link'; from: string; to: string; rel: string }
  | { type: 'unlink'; from: string; to: string; rel: string }
  | { type: 'forget'; id: string };

export function checkResolution(value: unknown, field = 'resolution'): ReviewResolution {
  if (typeof value !== 'string' || !(REVIEW_RESOLUTIONS as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of: ${REVIEW_RESOLUTIONS.join(', ')} — got ${JSON.stringify(value)}`, { field });
  }
  return value as ReviewResolution;
}

/** The queue key of a pair: at most one pending record per (new, old) pair. */
export function pendingKey(record: Pick<PendingConflict, 'newId' | 'oldId'>): string {
  return `${record.newId}\u0000${record.oldId}`;
}

/** A fresh pending record for a detected conflict (`conflict.a` new, `conflict.b` existing). */
export function pendingFromConflict(
  conflict: Pick<Conflict, 'kind' | 'reason' | 'similarity'> & { a: { id: string }; b: { id: string } },
  id: string,
  now: number,
): PendingConflict {
  return checkPendingConflict({
    id,
    newId: conflict.a.id,
    oldId: conflict.b.id,
    kind: conflict.kind,
    reason: conflict.reason,
    similarity: conflict.similarity,
    createdAt: now,
    status: 'pending',
  });
}

/**
 * Validates a record (from storage, an import, or a caller) and returns a clean copy. Rules: ids
 * non-empty and `newId !== oldId`; `kind` one of the conflict kinds; `reason` non-blank;
 * `similarity` finite in [−1, 1]; timestamps ≥ 0; a `pending` record has no resolution, a
 * `resolved` one has a valid resolution and `resolvedAt`.
 */
export function checkPendingConflict(value: unknown, field = 'conflict'): PendingConflict {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be an object`, { field });
  const r = value as Record<string, unknown>;
  const id = checkId(r.id, `${field}.id`);
  const newId = checkId(r.newId, `${field}.newId`);
  const oldId = checkId(r.oldId, `${field}.oldId`);
  if (newId === oldId) throw invalid(`${field}.oldId must differ from newId`, { field: `${field}.oldId` });
  if (r.kind !== 'contradiction' && r.kind !== 'update' && r.kind !== 'duplicate') {
    throw invalid(`${field}.kind must be one of: contradiction, update, duplicate — got ${JSON.stringify(r.kind)}`, { field: `${field}.kind` });
  }
  if (typeof r.reason !== 'string' || r.reason.trim() === '') throw invalid(`${field}.reason must be a non-blank string`, { field: `${field}.reason` });
  const sim = r.similarity;
  if (typeof sim !== 'number' || !Number.isFinite(sim) || sim < -1 || sim > 1) {
    throw invalid(`${field}.similarity must be a finite number in [-1, 1]`, { field: `${field}.similarity` });
  }
  const createdAt = checkTimestamp(r.createdAt, `${field}.createdAt`);
  if (r.status !== 'pending' && r.status !== 'resolved') {
    throw invalid(`${field}.status must be one of: ${REVIEW_STATUSES.join(', ')} — got ${JSON.stringify(r.status)}`, { field: `${field}.status` });
  }
  const out: PendingConflict = { id, newId, oldId, kind: r.kind, reason: r.reason, similarity: sim, createdAt, status: r.status };
  if (r.proposed !== undefined) {
    if (r.status !== 'pending') throw invalid(`${field} is resolved but still holds a proposed memory`, { field: `${field}.proposed` });
    out.proposed = checkProposed(r.proposed, newId, `${field}.proposed`);
  }
  if (r.status === 'resolved') {
    out.resolution = checkResolution(r.resolution, `${field}.resolution`);
    out.resolvedAt = checkTimestamp(r.resolvedAt, `${field}.resolvedAt`);
  } else if (r.resolution !== undefined || r.resolvedAt !== undefined) {
    throw invalid(`${field} is pending but carries a resolution`, { field: `${field}.resolution` });
  }
  return out;
}

/** A held memory: a whole record (record.ts) whose id is the record's `newId`, and a usable vector if any. */
function checkProposed(value: unknown, newId: string, field: string): ProposedMemory {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be an object`, { field });
  const p = value as Record<string, unknown>;
  const memory = checkRecord(p.memory as Memory);
  if (memory.id !== newId) throw invalid(`${field}.memory.id must be the record's newId`, { field: `${field}.memory.id` });
  const out: ProposedMemory = { memory };
  if (p.vector !== undefined) {
    if (!(p.vector instanceof Float32Array) || p.vector.length === 0 || vectorProblem(p.vector) !== null) {
      throw invalid(`${field}.vector must be a usable Float32Array`, { field: `${field}.vector` });
    }
    if (typeof p.model !== 'string' || p.model === '') throw invalid(`${field}.model must name the model that made the vector`, { field: `${field}.model` });
    out.vector = p.vector;
    out.model = p.model;
  }
  return out;
}

/** The relation `keep_both` records between a contradicting pair (`contradicts`, when the person chooses to keep both). */
export const KEEP_BOTH_REL = 'contradicts';

/**
 * Plans a user's resolution of a pending record (nothing is applied here):
 * - `supersede` → `supersede(oldId, newId)`: the new memory replaces the old one;
 * - `keep_both` → for a contradiction, the link `newId → oldId contradicts` (both stay, the
 *   disagreement is recorded); for an update, that link and the `updates` link between them
 *   removed (neither is outdated); for a duplicate, no mutation (a duplicate is not a contradiction);
 * - `drop_new` → `forget(newId)`.
 * Returns the resolved record and the mutations. An already resolved record, or an unknown
 * resolution name, throws INVALID_ARGUMENT. Records made moot by the mutations (see
 * {@link supersededRecords}) should be resolved or dropped in the same transaction.
 */
export function applyResolution(
  record: PendingConflict,
  resolution: unknown,
  now: number,
): { record: PendingConflict; mutations: ReviewMutation[] } {
  const checked = checkPendingConflict(record, 'record');
  const res = checkResolution(resolution);
  checkTimestamp(now, 'now');
  if (checked.status !== 'pending') {
    throw invalid(`conflict ${JSON.stringify(checked.id)} is already resolved (${checked.resolution})`, {
      field: 'record',
      id: checked.id,
      status: checked.status,
    });
  }
  let mutations: ReviewMutation[];
  if (res === 'supersede') mutations = [{ type: 'supersede', oldId: checked.oldId, newId: checked.newId }];
  else if (res === 'drop_new') mutations = checked.proposed ? [] : [{ type: 'forget', id: checked.newId }];
  else mutations = checked.kind !== 'duplicate' ? [{ type: 'link', from: checked.newId, to: checked.oldId, rel: checkRel(KEEP_BOTH_REL) }] : [];
  // Keeping both sides of an update: neither is outdated any more, they disagree (`contestedBy`).
  if (res === 'keep_both' && checked.kind === 'update') {
    mutations.push({ type: 'unlink', from: checked.newId, to: checked.oldId, rel: UPDATES_REL }, { type: 'unlink', from: checked.oldId, to: checked.newId, rel: UPDATES_REL });
  }
  // A held memory becomes one first when the person keeps it; dropped, it was never stored.
  if (checked.proposed && res !== 'drop_new') mutations.unshift({ type: 'insert', proposed: checked.proposed });
  const { proposed: _held, ...rest } = checked;
  return { record: { ...rest, status: 'resolved', resolution: res, resolvedAt: now }, mutations };
}

/**
 * The other pending records a set of mutations makes moot: any that involve a forgotten memory,
 * or whose old memory was just superseded (its conflict with a newer memory is settled). The
 * store drops (or auto-resolves) them so the queue does not show stale questions. `resolvedId`
 * excludes the record being resolved.
 */
export function supersededRecords(
  records: readonly PendingConflict[],
  mutations: readonly ReviewMutation[],
  resolvedId?: string,
): PendingConflict[] {
  const gone = new Set<string>();
  const replaced = new Set<string>();
  for (const m of mutations) {
    if (m.type === 'forget') gone.add(m.id);
    else if (m.type === 'supersede') replaced.add(m.oldId);
  }
  return records.filter(
    (r) =>
      r.status === 'pending' &&
      r.id !== resolvedId &&
      (gone.has(r.newId) || gone.has(r.oldId) || replaced.has(r.oldId) || replaced.has(r.newId)),
  );
}
