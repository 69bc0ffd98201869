/**
 * What recall reads around its candidates: the conversation a turn belongs to (the turns stored
 * just before and after it, one batched read) and the moment a query's relative time counts from.
 */
import { memoryEntities } from '../domain/query.ts';
import { cosineFrom } from '../domain/vector-math.ts';
import type { MemoryRows, VectorLog } from '../ports.ts';
import type { Memory } from '../types.ts';
import type { PoolItem } from '../domain/scoring.ts';

/** A memory in recall's pool, with its label (labels follow the order memories were stored in). */
export interface Candidate extends PoolItem {
  label: number;
}

/** Words that make a query's time relative ("last week", "two days ago"). */
const RELATIVE_TIME = /\b(yesterday|today|tonight|tomorrow|ago|last|this|past|previous|recently|lately)\b/i;

/**
 * What a query's relative time counts from: the newest memory's time (a conversation imported
 * months later is asked about as of its last turn), else the store's clock. Read only when the
 * query has a relative expression.
 */
export async function timeAnchor(storage: Pick<MemoryRows, 'list'>, query: string, now: number): Promise<number> {
  if (!RELATIVE_TIME.test(query)) return now;
  const [newest] = await storage.list({ limit: 1, includeSuperseded: true, includeExpired: true, now });
  return newest ? Math.min(now, newest.createdAt) : now;
}

/** How many of the pool's best candidates look up their conversation neighbours (one batched read). */
export const NEIGHBOUR_CANDIDATES = 20;
/** How many of the best candidates bring their neighbours into the pool. */
export const NEIGHBOUR_JOINERS = 10;
/** Two memories are turns of one conversation when written this close in time (seconds). */
export const NEIGHBOUR_WINDOW = 6 * 3_600;

/** A memory that can have conversation neighbours: a transcript line, or one with a source. */
function mayBeTurn(m: Memory): boolean {
  return m.source !== null || memoryEntities(m).speaker !== null;
}

/** Two memories are neighbouring turns of one conversation: both transcript lines (or of one source), close in time. */
function sameConversation(a: Memory, b: Memory): boolean {
  if (Math.abs(a.createdAt - b.createdAt) > NEIGHBOUR_WINDOW) return false;
  if (a.source !== null && a.source === b.source) return true;
  return memoryEntities(a).speaker !== null && memoryEntities(b).speaker !== null;
}

/**
 * For the best {@link NEIGHBOUR_CANDIDATES} of the pool, the memories stored just before and after
 * (labels ± 1: turns are stored in order) that belong to the same conversation: each candidate's
 * `neighbourCosine` is the best of their cosines with the query, and the neighbours of the best
 * {@link NEIGHBOUR_JOINERS} join the pool. Memories that are not conversation turns have none: a
 * row stored beside a candidate but not of its conversation neither joins nor has its vector read,
 * and a candidate that is no conversation turn (no speaker, no source) has nothing read around it:
 * a store of notes pays no read here.
 */
export async function attachNeighbours(storage: Pick<MemoryRows, 'getByLabels'> & Pick<VectorLog, 'vectorsOf'>, pool: Candidate[], query: Float32Array, accept: (m: Memory) => boolean): Promise<void> {
  const best = [...pool].filter((c) => !c.filtered).sort((a, b) => b.cosine - a.cosine).slice(0, NEIGHBOUR_CANDIDATES);
  // Only a turn can have a neighbour of its conversation: a note's neighbours are not read at all.
  const turnsOnly = best.filter((c) => mayBeTurn(c.memory));
  if (turnsOnly.length === 0) return;
  const byLabel = new Map(pool.map((c) => [c.label, c]));
  const looking = new Map(turnsOnly.map((c) => [c.label, c]));
  const wanted = [...new Set(turnsOnly.flatMap((c) => [c.label - 1, c.label + 1]))].filter((l) => l >= 0 && !byLabel.has(l));
  const rows = wanted.length ? await storage.getByLabels(wanted) : new Map<number, Memory>();
  // The rows that are turns of the conversation of a candidate beside them; only theirs are read.
  const turns = [...rows].filter(([label, memory]) =>
    [label - 1, label + 1].some((l) => {
      const c = looking.get(l);
      return c !== undefined && sameConversation(c.memory, memory);
    }),
  );
  // Only the rows that exist: a label with no memory (the newest's next, a forgotten one) has no
  // cached vector either, and asking would read storage on every recall.
  const vectors = turns.length ? await storage.vectorsOf(turns.map(([label]) => label)) : new Map<number, Float32Array>();
  const outside = new Map<number, { memory: Memory; cosine: number }>();
  const toQuery = cosineFrom(query);
  for (const [label, memory] of turns) {
    const v = vectors.get(label);
    if (v) outside.set(label, { memory, cosine: toQuery(v) });
  }
  const neighbour = (label: number): { memory: Memory; cosine: number } | undefined => byLabel.get(label) ?? outside.get(label);
  // The turns of the best candidates' conversations join, each once.
  const joining = new Map<number, Candidate>();
  for (const c of best.slice(0, NEIGHBOUR_JOINERS)) {
    for (const label of [c.label - 1, c.label + 1]) {
      const n = outside.get(label);
      if (n && !joining.has(label) && sameConversation(c.memory, n.memory) && accept(n.memory)) joining.set(label, { memory: n.memory, cosine: n.cosine, label, filtered: false });
    }
  }
  const joined = [...joining.values()];
  for (const c of [...best, ...joined]) {
    let top: number | undefined;
    for (const label of [c.label - 1, c.label + 1]) {
      const n = neighbour(label);
      if (n && sameConversation(c.memory, n.memory)) top = Math.max(top ?? -1, n.cosine);
    }
    if (top !== undefined) c.neighbourCosine = top;
  }
  pool.push(...joined);
}
