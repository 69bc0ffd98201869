/**
 * Which leaf of a replicated document holds the memory's state (#49). CouchDB keeps every leaf
 * revision and picks a winner by its own rule: any live leaf beats every deleted one, then the
 * most edits, then the highest revision id. That rule knows nothing of what a deletion means
 * here, and so a forget lost to any older edit still standing on a losing branch (an edit that
 * lost a conflict earlier, or one replayed by a hostile server), and came back on every device.
 *
 * Here a document's state is the *logical* winner over its leaves:
 * - only leaves that hold a state count: a live memory, or a forget. A prune (the deletion that
 *   removes a losing branch once it was folded in) says nothing about the memory; a leaf that
 *   failed its checks (unsealed, sealed for another revision or writer) is refused;
 * - the most edits (the revision's generation) wins, so a forget wins over every revision it
 *   answered, on every branch;
 * - at the same generation a forget wins over a live revision (what a person asked to forget
 *   stays forgotten when an edit made without seeing the forget ties with it);
 * - then the higher tie key: the seal's IV in an encrypted database (which a server cannot
 *   choose), else the revision id (CouchDB's own tie-break).
 *
 * Pure: leaves in, a leaf out.
 */
import { DOC_KIND } from './document.ts';
import type { ReplicaDocument } from './ports.ts';

/** What a leaf revision says of its memory. */
export type LeafState = 'live' | 'forget' | 'prune' | 'refused';

export interface Leaf {
  rev: string;
  state: LeafState;
  /** Orders two leaves of the same generation and state (see above). */
  tie: string;
}

/** A revision id's generation: the `3` of `3-a1b2…` (0 when it is not a revision id). */
export function generation(rev: string): number {
  const dash = rev.indexOf('-');
  const n = dash > 0 ? Number(rev.slice(0, dash)) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** Whether `a` holds the memory's state over `b` (both live or forget). */
function beats(a: Leaf, b: Leaf): boolean {
  const ga = generation(a.rev);
  const gb = generation(b.rev);
  if (ga !== gb) return ga > gb;
  if (a.state !== b.state) return a.state === 'forget';
  return a.tie > b.tie;
}

/** The leaf that holds the document's state, or null when none does (only prunes and refused leaves). */
export function logicalWinner(leaves: readonly Leaf[]): Leaf | null {
  let best: Leaf | null = null;
  for (const leaf of leaves) {
    if (leaf.state !== 'live' && leaf.state !== 'forget') continue;
    if (best === null || beats(leaf, best)) best = leaf;
  }
  return best;
}

/**
 * A leaf as read from the replica. A deletion without `op` was written before #49: a forget when
 * it carries the memory documents' `kind`, a prune when it is bare (a removed losing revision).
 */
export function leafOf(doc: ReplicaDocument): Leaf {
  const raw = doc as { _deleted?: boolean; kind?: unknown; op?: unknown; refused?: unknown; tie?: unknown };
  let state: LeafState;
  if (raw.refused !== undefined) state = 'refused';
  else if (!raw._deleted) state = 'live';
  else if (raw.op === undefined) state = raw.kind === DOC_KIND ? 'forget' : 'prune';
  else state = raw.op === 'forget' || raw.op === 'prune' ? raw.op : 'refused';
  return { rev: doc._rev, state, tie: typeof raw.tie === 'string' ? raw.tie : doc._rev.slice(doc._rev.indexOf('-') + 1) };
}
