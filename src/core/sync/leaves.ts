/**
 * A replicated document's state, read from its leaves (#49). CouchDB's winner comes with the
 * change; its live losing leaves are read (at most {@link MAX_FOLDED_LEAVES}: a document with more
 * was crafted, and the rest are pruned unread and counted), and so are the deleted leaves that
 * could outrank the best live one (as many edits or more), so that a forget standing on a losing
 * branch is found. Which leaf holds the state is winner.ts's rule; a leaf the replica refused
 * (encrypted-replica.ts) is counted unreadable and never holds it.
 */
import type { ReplicaChange, ReplicaDocument, SyncReplica } from './ports.ts';
import type { BridgeRun, OnUnreadable } from './run.ts';
import { generation, leafOf, logicalWinner } from './winner.ts';

/**
 * Leaves of one document read per round, live and deleted each. Two or three devices leave one or
 * two; a document with more was crafted (a thousand leaves once cost 54 s, 530 MB and a thousand
 * review copies).
 */
export const MAX_FOLDED_LEAVES = 16;

/** Revisions read back from a refused leaf for the nearest trusted one. */
export const MAX_HISTORY_READ = 8;

export interface Resolved {
  /** The leaf holding the memory's state (a live revision or a forget), or null: none this device can trust. */
  winner: ReplicaDocument | null;
  /**
   * The other live leaves it did not refuse: folded into a live winner, or forgotten with a
   * forget (none when the winner is a live revision read back from history: nothing is folded there).
   */
  others: ReplicaDocument[];
}

/** The nearest revision under a refused one that this device can trust, read back through its history; null when none can be read. */
export async function trustedBeneath(replica: SyncReplica, doc: ReplicaDocument): Promise<ReplicaDocument | null> {
  return (await replica.getAncestors(doc._id, doc._rev, MAX_HISTORY_READ)).find((h) => leafOf(h).state !== 'refused') ?? null;
}

export async function resolveChange(run: BridgeRun, change: ReplicaChange & { doc: ReplicaDocument }, onUnreadable: OnUnreadable): Promise<Resolved> {
  const { replica, checkpoint } = run;
  const docs: ReplicaDocument[] = [change.doc];
  if (change.conflicts.length || change.deletedLeaves.length) {
    for (const rev of change.conflicts.slice(0, MAX_FOLDED_LEAVES)) {
      const doc = await replica.getRevision(change.id, rev);
      if (doc) docs.push(doc);
    }
    const beyond = change.conflicts.slice(MAX_FOLDED_LEAVES);
    if (beyond.length) {
      await replica.removeRevisions(change.id, beyond, checkpoint.replicaId);
      for (const _ of beyond) onUnreadable(change.id, `more than ${MAX_FOLDED_LEAVES} conflicting revisions`);
    }
    // A deletion with fewer edits than the best live leaf cannot hold the state: not read.
    const live = Math.max(0, ...docs.filter((d) => leafOf(d).state === 'live').map((d) => generation(d._rev)));
    const deleted = change.deletedLeaves.filter((rev) => generation(rev) >= live).sort((a, b) => generation(b) - generation(a));
    for (const rev of deleted.slice(0, MAX_FOLDED_LEAVES)) {
      const doc = await replica.getRevision(change.id, rev);
      if (doc) docs.push(doc);
    }
  }
  const leaves = docs.map(leafOf);
  // Every refused leaf is counted, one claiming this device wrote it too (its writer is what a relabel forges).
  leaves.forEach((leaf, i) => {
    if (leaf.state === 'refused') onUnreadable(change.id, docs[i]!.refused ?? 'refused');
  });
  const others = docs.filter((_, i) => leaves[i]!.state === 'live');
  // A refused leaf with more revisions than the best trusted one may stand on a state that
  // outranks it (a forget, an edit, buried under a forgery): its history is read back to the
  // nearest trusted revision, which takes part as a candidate (not as a leaf: nothing is written
  // over it). Where no history can be read, nothing is applied: the store keeps what it has.
  let best = logicalWinner(leaves);
  const hiding = docs.filter((d, i) => leaves[i]!.state === 'refused' && generation(d._rev) > (best ? generation(best.rev) : 0));
  if (hiding.length) {
    const found: ReplicaDocument[] = [];
    for (const doc of hiding.slice(0, MAX_FOLDED_LEAVES)) {
      const trusted = await trustedBeneath(replica, doc);
      if (!trusted) return { winner: null, others: [] };
      found.push(trusted);
    }
    const candidates = [...leaves, ...found.map(leafOf)];
    best = logicalWinner(candidates);
    const winner = best ? [...docs, ...found][candidates.indexOf(best)]! : null;
    return settle(winner, winner !== null && found.includes(winner));
  }
  return settle(best ? docs[leaves.indexOf(best)]! : null, false);

  /**
   * A forget carries over every live leaf, refused ones too (sealed over them, a forgery is buried
   * for good); a live winner folds the trusted ones, unless it was read from history.
   */
  function settle(winner: ReplicaDocument | null, fromHistory: boolean): Resolved {
    if (!winner) return { winner, others: [] };
    if (winner._deleted) return { winner, others: docs.filter((d) => !d._deleted) };
    return { winner, others: fromHistory ? [] : others.filter((d) => d !== winner) };
  }
}
