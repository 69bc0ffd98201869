/**
 * The bridge between a store and its replica: local changes out (the journal is the outbox),
 * replicated changes in (through the store's own writes, as actor `sync:<remote>`, so the
 * journal, undo, the index and change events stay right), each document's state read from its
 * leaves (leaves.ts, winner.ts), and concurrent edits folded together (fold.ts) with the losing
 * texts queued for review. Orchestration over ports only: the
 * replica is whatever `SyncReplica` the composition root hands in.
 */
import { journalFor, reportChanged, type Using } from '../context.ts';
import { throwIfAborted } from '../errors.ts';
import { DeferredIndex } from '../services/deferred-index.ts';
import type { Memory } from '../types.ts';
import { docId, fromDocument, memoryIdOf, toDocument, tombstone, type MemoryDocument, type SyncedMemory, type TombstoneDocument } from './document.ts';
import { entryEffect } from '../domain/journal-patch.ts';
import { checkCreatedAt } from '../domain/validate.ts';
import type { ReplicaDocument } from './ports.ts';
import { foldConflicts } from './fold.ts';
import { resolveChange, trustedBeneath } from './leaves.ts';
import { capped, inScope, readLocal, vectorsFor, type BridgeRun, type LocalRows, type OnUnreadable } from './run.ts';

/** Documents read and written per batch (one storage transaction per batch of inserts). */
const BATCH = 256;
/** Vector bytes a pull may leave pending for the background graph build (see applyReplica). */
const PENDING_BYTES = 128 * 2 ** 20;

/** The synced fields in a fixed order: two memories are the same replicated state when these match. */
const FIELDS: readonly (keyof SyncedMemory)[] = [
  'id', 'text', 'type', 'tags', 'importance', 'createdAt', 'source', 'links', 'supersededBy', 'supersededAt',
  'polarity', 'expiresAt', 'pinned', 'trust', 'contentHash', 'validFrom', 'validUntil', 'surfacesWhen',
];

export function sameMemory(a: SyncedMemory, b: SyncedMemory): boolean {
  return FIELDS.every((f) => JSON.stringify(a[f]) === JSON.stringify(b[f]));
}

const stripAccess = (m: Memory): SyncedMemory => {
  const { lastAccessed: _l, accessCount: _c, ...rest } = m;
  return rest;
};

/**
 * Writes the current state of these memories to the replica where it differs from the replica's
 * winning revision: a live memory as its document, a missing one as a deletion (when the replica
 * has it). A superseded memory's superseder goes too when the replica lacks it (a review copy
 * restored by the user, say). Returns how many documents were written.
 */
async function pushIds(run: BridgeRun, ids: string[], rows?: LocalRows): Promise<number> {
  const { ctx, replica, checkpoint } = run;
  const local = rows ?? (await readLocal(ctx, ids));
  const extra = [...local.values()].map((l) => l.memory.supersededBy).filter((id) => id !== '' && !ids.includes(id));
  if (extra.length) {
    const known = await replica.getDocs(extra.map(docId));
    const missing = extra.filter((id) => !known.has(docId(id)));
    for (const [id, row] of await readLocal(ctx, missing)) (ids.push(id), local.set(id, row));
  }
  for (let attempt = 0; attempt < 3 && ids.length; attempt++) {
    const current = await replica.getDocs(ids.map(docId));
    const writes: (MemoryDocument | TombstoneDocument)[] = [];
    for (const id of ids) {
      const have = current.get(docId(id));
      const row = local.get(id);
      if (!row) {
        // Gone here: deleted there too, when the replica holds it inside the synced namespaces.
        if (have && !have._deleted && Array.isArray(have.memory?.tags) && inScope(checkpoint, have.memory.tags)) {
          writes.push(tombstone(have._id, have._rev, checkpoint.replicaId));
        }
        continue;
      }
      // Outside the synced namespaces: not sent (one that left them stays on the server as it was).
      if (!inScope(checkpoint, row.memory.tags)) continue;
      const doc = toDocument(row.memory, row.vector ?? null, ctx.embedder.id, checkpoint.replicaId);
      // Unchanged content is not written again, whatever model made the replica's vector: a
      // device on another model re-embedded it for itself, and the vector travels with edits only.
      // Nor is the replica's state as this store took it in (read with defaults, under the session's
      // trust ceiling: a local view, never sent back).
      if (have && !have._deleted && (await alreadyThere(run, have, doc.memory))) continue;
      writes.push(have ? { ...doc, _rev: have._rev } : doc);
    }
    if (!writes.length) return 0;
    const lost = await replica.putDocs(writes);
    const written = writes.length - lost.length;
    if (!lost.length) return written;
    ids = lost.map((d) => memoryIdOf(d)!).filter((id): id is string => id !== null);
    if (attempt === 2) return written;
  }
  return 0;
}

/**
 * Whether the replica's revision already says what `memory` says, as this store reads it. Under a
 * revision the replica refused, the trusted one it stands on is asked (a comparison must not
 * restate an older state over a forgery, one revision above a real edit made meanwhile).
 */
async function alreadyThere(run: BridgeRun, have: ReplicaDocument, memory: SyncedMemory): Promise<boolean> {
  if (have.refused !== undefined) {
    const trusted = await trustedBeneath(run.replica, have);
    return trusted !== null && !trusted._deleted && (await alreadyThere(run, trusted, memory));
  }
  if (!have.memory) return false;
  if (sameMemory(have.memory, memory)) return true;
  try {
    const theirs = fromDocument(have, run.ctx.embedder.id, run.ctx.embedder.dim).memory;
    return sameMemory(theirs, memory) || sameMemory(capped(run, theirs), memory);
  } catch {
    return false;
  }
}

/**
 * Local changes out: every memory a journal entry after the checkpoint touched (but the
 * replicated ones, written by `sync:` actors), in journal order, a page at a time. With no
 * checkpoint, or when compaction dropped entries the checkpoint has not seen, every live memory
 * is compared with the replica instead (the journal no longer says what changed).
 */
export async function pushOutbox(run: BridgeRun): Promise<void> {
  const { ctx, checkpoint } = run;
  const [newest = 0] = await ctx.storage.journalKeys({ limit: 1 });
  if (newest <= checkpoint.pushedSeq) {
    // Nothing written here since: an empty store's first comparison is done too.
    if (newest === 0) checkpoint.compared = true;
    return;
  }
  const horizon = await ctx.storage.journalHorizon();
  let done = 0;
  const compared = checkpoint.compared ?? (checkpoint.pushedSeq > 0 || checkpoint.appliedSeq !== 0);
  const total = compared ? newest - checkpoint.pushedSeq : null;
  if (!compared || (horizon !== null && horizon.seq > checkpoint.pushedSeq + 1)) {
    for await (const page of ctx.storage.pagesByCreated(BATCH)) {
      throwIfAborted(run.signal);
      // The page already holds each memory and its vector: no second read.
      run.counts.pushed += await pushIds(run, page.map((p) => p.memory.id), new Map(page.map((p) => [p.memory.id, p])));
      done += page.length;
      run.onProgress?.({ kind: 'sync', phase: 'push', done, total: null });
    }
    // A comparison of live memories cannot see a forget: the journal since the last push can (a
    // checkpoint started over for other namespaces keeps where the previous one had pushed to).
    if (checkpoint.pushedSeq > 0) await pushForgets(run, checkpoint.pushedSeq);
    checkpoint.pushedSeq = newest;
    checkpoint.compared = true;
    return;
  }
  let after = checkpoint.pushedSeq;
  for (;;) {
    throwIfAborted(run.signal);
    const entries = await ctx.storage.journalAfter(after, BATCH);
    if (!entries.length) break;
    const ids = [...new Set(entries.filter((e) => e.id !== '*' && !e.actor.startsWith('sync:')).map((e) => e.id))];
    if (ids.length) run.counts.pushed += await pushIds(run, ids);
    after = entries[entries.length - 1]!.seq!;
    checkpoint.pushedSeq = after;
    done += entries.length;
    run.onProgress?.({ kind: 'sync', phase: 'push', done: Math.min(done, total ?? done), total });
    if (entries.length < BATCH) break;
  }
}

/** The memories forgotten here after `after` (journal entries not written by sync), sent as deletions where the replica holds them. */
async function pushForgets(run: BridgeRun, after: number): Promise<void> {
  const { ctx } = run;
  for (let seq = after; ; ) {
    throwIfAborted(run.signal);
    const entries = await ctx.storage.journalAfter(seq, BATCH);
    if (!entries.length) return;
    const ids = [...new Set(entries.filter((e) => entryEffect(e) === 'removed' && !e.actor.startsWith('sync:')).map((e) => e.id))];
    const gone = ids.length ? (await ctx.storage.exists(ids)).flatMap((held, i) => (held ? [] : [ids[i]!])) : [];
    if (gone.length) run.counts.pushed += await pushIds(run, gone, new Map());
    seq = entries[entries.length - 1]!.seq!;
    if (entries.length < BATCH) return;
  }
}

/**
 * Replicated changes in: the replica's changes feed after the checkpoint, a page at a time.
 * Revisions this replica wrote are skipped (they are the store's own state); deletions forget;
 * new memories are inserted a batch per transaction; changed ones replaced (re-embedded only
 * when the text changed and the document's vector is another model's). A document this version
 * cannot read is skipped and counted in the status, never half-applied.
 */
export async function applyReplica(run: BridgeRun, onUnreadable: OnUnreadable): Promise<void> {
  const { ctx } = run;
  // Forgotten here and not sent yet: the replica's copy must not bring them back (a checkpoint
  // started over for other namespaces reads the replica from its start).
  const forgotten = await forgottenSincePush(run);
  // New memories join the index's pending set (searchable at once by exact scan) and the graph
  // is built after the round, in the background: a first sync of many documents is not paced by
  // HNSW insertion, and the store answers meanwhile (as after an import). Up to 128 MiB worth of
  // float32 vectors wait (65,536 at 512 dimensions; over the int8 graph they wait as its int8
  // codes, a quarter of that); beyond that the oldest join the graph at once.
  const release = ctx.index instanceof DeferredIndex ? ctx.index.hold(PENDING_BYTES) : () => undefined;
  try {
    await applyPages(run, forgotten, onUnreadable);
  } finally {
    release();
  }
}

async function applyPages(run: BridgeRun, forgotten: Set<string>, onUnreadable: OnUnreadable): Promise<void> {
  const { ctx, replica, checkpoint } = run;
  let done = 0;
  for (;;) {
    throwIfAborted(run.signal);
    const { results, lastSeq } = await replica.changes(checkpoint.appliedSeq, BATCH);
    if (!results.length) {
      checkpoint.appliedSeq = lastSeq;
      break;
    }
    const inserts: { memory: Memory; vector: Float32Array | null }[] = [];
    // This page's accepted supersessions not stored yet (inserts wait for the page's end), for the cycle check.
    const pending = new Map<string, string>();
    for (const change of results) {
      const id = memoryIdOf(change.id);
      if (id === null || !change.doc) continue;
      const { winner, others } = await resolveChange(run, { ...change, doc: change.doc }, onUnreadable);
      if (!winner) continue; // nothing this device can trust: the store keeps what it has
      if (winner._deleted) {
        await forgetReplicated(run, id, winner, others);
        continue;
      }
      let doc = winner;
      if (!Array.isArray(doc.memory?.tags)) {
        // Not a memory this version can read (no memory, one sealed under another key): counted.
        if (doc.by !== checkpoint.replicaId) onUnreadable(change.id, readProblem(doc, ctx.embedder.id, ctx.embedder.dim));
        continue;
      }
      if (!inScope(checkpoint, doc.memory.tags)) continue;
      if (others.length) doc = await foldConflicts(run, doc, others);
      else if (doc.by === checkpoint.replicaId) continue;
      let read;
      try {
        read = fromDocument(doc, ctx.embedder.id, ctx.embedder.dim);
        checkCreatedAt(read.memory.createdAt, ctx.clock.now());
      } catch (error) {
        onUnreadable(change.id, (error as Error).message);
        continue;
      }
      read = { ...read, memory: capped(run, read.memory) };
      const current = await ctx.storage.get(id);
      if (current && sameMemory(stripAccess(current), read.memory)) continue;
      // A document in the namespaces whose id is a memory here outside them: never overwritten.
      if (current && checkpoint.namespaces && !inScope(checkpoint, current.tags)) {
        onUnreadable(change.id, 'its id is a memory outside the synced namespaces');
        continue;
      }
      if (!current && forgotten.has(id)) continue;
      const cycle = await supersedeCycle(ctx, read.memory, pending);
      if (cycle) {
        onUnreadable(change.id, `supersede cycle: ${cycle.map((c) => JSON.stringify(c)).join(' → ')} (every memory on it would be hidden)`);
        continue;
      }
      if (!current) {
        if (read.memory.supersededBy !== '') pending.set(id, read.memory.supersededBy);
        inserts.push({ memory: { ...read.memory, lastAccessed: read.memory.createdAt, accessCount: 0 }, vector: read.vector });
        continue;
      }
      await replaceWith(run, current, read.memory, read.vector);
    }
    if (inserts.length) {
      const vectors = await vectorsFor(run, inserts.map((i) => ({ text: i.memory.text, vector: i.vector })));
      const journal = journalFor(ctx, 'sync', { remote: replica.remote });
      ctx.commit(await ctx.storage.insert(inserts.map((i) => i.memory), vectors, journal), { deferred: true });
      reportChanged(ctx, inserts.map((i) => i.memory.id));
      run.counts.applied += inserts.length;
    }
    checkpoint.appliedSeq = lastSeq;
    done += results.length;
    run.onProgress?.({ kind: 'sync', phase: 'apply', done, total: null });
  }
}

/**
 * A forget that holds the document's state (winner.ts): the memory is forgotten here, and the live
 * leaves it outranks get a forget of their own, so that CouchDB's own winner (which prefers any
 * live leaf) agrees on the server and on every replica — a losing edit never brings it back.
 */
async function forgetReplicated(run: BridgeRun, id: string, winner: ReplicaDocument, others: ReplicaDocument[]): Promise<void> {
  const { ctx, replica, checkpoint } = run;
  if (others.length) {
    await replica.putDocs(others.map((o) => tombstone(o._id, o._rev, checkpoint.replicaId)));
    run.counts.conflicts += 1;
  }
  // This replica's own forget, and the store holds the memory again by a change of its own not
  // yet pushed (an undo of the forget): that change goes out next and wins. Otherwise the forget is
  // the replicated state — even our own old one, winning again after the memory came back from
  // elsewhere and was forgotten there.
  if (winner.by === checkpoint.replicaId && (await changedHereSincePush(run, id))) return;
  // With namespaces, a deletion reaches only a memory inside them (a personal memory is not
  // forgotten because a whole-store device forgot its copy, nor by a crafted tombstone).
  if (checkpoint.namespaces) {
    const here = await ctx.storage.get(id);
    if (here && !inScope(checkpoint, here.tags)) return;
  }
  const removed = await ctx.storage.remove(id, journalFor(ctx, 'sync', { remote: replica.remote }));
  if (removed) {
    ctx.commit(removed);
    reportChanged(ctx, [id]);
    run.counts.deleted += 1;
  }
}

/** Longest supersede chain followed from a replicated memory before giving up (as an import does). */
const MAX_CHAIN = 10_000;

/**
 * The loop a replicated memory's supersession would close (its id back at the end), or null: a
 * cycle hides every memory on it for good, so sync refuses the document that closes it, as an
 * import refuses such a row. The chain is followed through this page's pending inserts and the store.
 */
async function supersedeCycle(ctx: Using<'rows'>, memory: SyncedMemory, pending: Map<string, string>): Promise<string[] | null> {
  const path = [memory.id];
  const seen = new Set(path);
  for (let at = memory.supersededBy; at !== '' && path.length <= MAX_CHAIN; ) {
    if (at === memory.id) return [...path, at];
    if (seen.has(at)) return null; // a loop elsewhere, not through this memory
    seen.add(at);
    path.push(at);
    at = pending.get(at) ?? (await ctx.storage.get(at))?.supersededBy ?? '';
  }
  return null;
}

/** Why a replicated document cannot be read here. */
function readProblem(doc: unknown, model: string, dim: number): string {
  try {
    fromDocument(doc, model, dim);
    return 'not a memory document';
  } catch (error) {
    return (error as Error).message;
  }
}

/** Ids the store forgot itself (not through sync) after the last push. */
async function forgottenSincePush(run: BridgeRun): Promise<Set<string>> {
  const out = new Set<string>();
  // Never pushed to this remote: its replica holds nothing this store sent, so nothing to keep out.
  if (run.checkpoint.pushedSeq === 0) return out;
  for (let seq = run.checkpoint.pushedSeq; ; ) {
    const entries = await run.ctx.storage.journalAfter(seq, BATCH);
    for (const e of entries) {
      if (e.id === '*' || e.actor.startsWith('sync:')) continue;
      const effect = entryEffect(e);
      if (effect === 'removed') out.add(e.id);
      else if (effect === 'created') out.delete(e.id);
    }
    if (entries.length < BATCH) return out;
    seq = entries[entries.length - 1]!.seq!;
  }
}

/** Whether the store wrote this memory itself (not through sync) after the last push. */
async function changedHereSincePush(run: BridgeRun, id: string): Promise<boolean> {
  const entries = await run.ctx.storage.journalRead({ id });
  return entries.some((e) => (e.seq ?? 0) > run.checkpoint.pushedSeq && !e.actor.startsWith('sync:'));
}

/**
 * Replaces a local memory by its replicated state, keeping access tracking. When the store wrote
 * the memory since it was read, that write is newer: it stays, and goes out with the next push.
 */
async function replaceWith(run: BridgeRun, current: Memory, synced: SyncedMemory, vector: Float32Array | null): Promise<void> {
  const { ctx, replica } = run;
  const next: Memory = { ...synced, lastAccessed: current.lastAccessed, accessCount: current.accessCount };
  const newVector = next.text === current.text ? undefined : (await vectorsFor(run, [{ text: next.text, vector }]))[0];
  const result = await ctx.storage.replace(current, next, newVector, journalFor(ctx, 'sync', { remote: replica.remote }));
  if (!result) return;
  if (result.added.length || result.removedLabels.length) ctx.commit(result);
  reportChanged(ctx, [next.id]);
  run.counts.applied += 1;
}
