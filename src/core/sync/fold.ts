/**
 * Folding concurrent edits of one memory into the winner (merge.ts says how fields combine):
 * the device that wrote a losing revision folds it in, so the person who made the edit that lost
 * finds it in their review queue, and it is queued once, not on every device. Its tags and links
 * join the winner (a new revision, replicated), its text, when it differs, waits in the review
 * queue as a held memory against the winner — not a memory until the person keeps it — and the
 * revision is pruned so every replica converges on one document. Revisions of no live device
 * (merges) are folded by whoever sees them; another device's losing revision is left for it.
 */
import { journalFor, reportChanged } from '../context.ts';
import type { Memory } from '../types.ts';
import { checkPendingConflict } from '../domain/review.ts';
import { cosine } from '../domain/vector-math.ts';
import { fromDocument, type MemoryDocument, type SyncedMemory } from './document.ts';
import { mergeRevisions } from './merge.ts';
import type { ReplicaDocument } from './ports.ts';
import { capped, readLocal, vectorsFor, type BridgeRun } from './run.ts';

/** A review copy of a losing revision: its own id, no links or pin, held in the review queue beside the winner. */
function reviewCopy(loser: SyncedMemory, rev: string, now: number): Memory {
  return { ...loser, id: `${loser.id}~${rev}`, links: [], supersededBy: '', supersededAt: 0, pinned: false, lastAccessed: now, accessCount: 0 };
}

/** Folds this device's (and merges') losing leaves `others` into `winner`; returns the revision to apply. */
export async function foldConflicts(run: BridgeRun, winner: ReplicaDocument, others: ReplicaDocument[]): Promise<ReplicaDocument> {
  const { ctx, replica, checkpoint } = run;
  const losers = others.filter((doc) => doc.by === checkpoint.replicaId || doc.by === 'merge' || doc.by === undefined);
  if (!losers.length) return winner;
  const readable = losers.flatMap((doc) => {
    try {
      return [{ rev: doc._rev, read: fromDocument(doc, ctx.embedder.id, ctx.embedder.dim) }];
    } catch {
      return []; // an unreadable losing revision is pruned with the others; the winner stands
    }
  });
  const merge = mergeRevisions(winner.memory, readable.map((r) => r.read.memory));
  let result = winner;
  if (merge.merged) {
    const doc: MemoryDocument = { _id: winner._id, _rev: winner._rev, kind: winner.kind, v: winner.v, memory: merge.merged, ...(winner.vector ? { vector: winner.vector } : {}), by: 'merge' };
    const lost = await replica.putDocs([doc]);
    if (lost.length === 0) result = (await replica.getDocs([winner._id])).get(winner._id) ?? winner;
  }
  await replica.removeRevisions(winner._id, losers.map((l) => l._rev), checkpoint.replicaId);
  if (merge.review.length) {
    await holdForReview(run, winner.memory.id, merge.review.map((m) => {
      const from = readable.find((r) => r.read.memory.text === m.text)!;
      return { loser: capped(run, m), rev: from.rev, vector: from.read.vector };
    }));
  }
  run.counts.conflicts += 1;
  return result;
}

/** Queues losing texts for review against the winner, each once (a copy already waiting is not queued again). */
async function holdForReview(run: BridgeRun, winnerId: string, losing: { loser: SyncedMemory; rev: string; vector: Float32Array | null }[]): Promise<void> {
  const { ctx } = run;
  const now = ctx.clock.now();
  const waiting = new Set((await ctx.storage.listConflicts('pending')).map((c) => c.newId));
  const fresh = losing.map((l) => ({ ...l, copy: reviewCopy(l.loser, l.rev, now) })).filter((l) => !waiting.has(l.copy.id));
  if (!fresh.length) return;
  const vectors = await vectorsFor(run, fresh.map((l) => ({ text: l.copy.text, vector: l.vector })));
  const winnerVector = (await readLocal(ctx, [winnerId])).get(winnerId)?.vector;
  const conflicts = fresh.map((l, i) =>
    checkPendingConflict({
      id: ctx.ids.next(),
      newId: l.copy.id,
      oldId: winnerId,
      kind: 'update',
      reason: 'sync_conflict',
      similarity: winnerVector ? Math.max(-1, Math.min(1, Number(cosine(winnerVector, vectors[i]!).toFixed(4)))) : 0,
      createdAt: now,
      status: 'pending',
      proposed: { memory: l.copy, vector: vectors[i]!, model: ctx.embedder.id },
    }),
  );
  await ctx.storage.applyGraphChanges({ conflicts }, journalFor(ctx, 'sync-conflict', { remote: run.replica.remote, of: winnerId }));
  reportChanged(ctx, [winnerId]);
}
