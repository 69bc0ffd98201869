/**
 * A replicated document's state, read from its leaves (#49). CouchDB's winner comes with the
 * change; its live losing leaves are read (at most {@link MAX_FOLDED_LEAVES}: a document with more
 * was crafted, and the rest are pruned unread and counted), and so are the deleted leaves that
 * could outrank the best live one (as many edits or more), so that a forget standing on a losing
 * branch is found. Which leaf holds the state is winner.ts's rule; a leaf the replica refused
 * (encrypted-replica.ts) is counted unreadable and never holds it.
 */
import type { ReplicaChange, ReplicaDocument } from './ports.ts';
import type { BridgeRun, OnUnreadable } from './run.ts';
import { generation, leafOf, logicalWinner } from './winner.ts';

/**
 * Leaves of one document read per round, live and deleted each. Two or three devices leave one or
 * two; a document with more was crafted (a thousand leaves once cost 54 s, 530 MB and a thousand
 * review copies).
 */
export const MAX_FOLDED_LEAVES = 16;

export interface Resolved {
  /** The leaf holding the memory's state (a live revision or a forget), or null: none this device can trust. */
  winner: ReplicaDocument | null;
  /** The other live leaves it did not refuse: folded into a live winner, or forgotten with a forget. */
  others: ReplicaDocument[];
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
  leaves.forEach((leaf, i) => {
    // This device's own revisions are never counted against the remote.
    if (leaf.state === 'refused' && docs[i]!.by !== checkpoint.replicaId) onUnreadable(change.id, docs[i]!.refused ?? 'refused');
  });
  const best = logicalWinner(leaves);
  const winner = best ? docs[leaves.indexOf(best)]! : null;
  return { winner, others: docs.filter((d, i) => d !== winner && leaves[i]!.state === 'live') };
}
