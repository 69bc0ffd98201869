/**
 * The journal: every mutation appends `{ ts, op, actor, id, before, after, meta }` in the same
 * transaction as the change (storage does the writing). Here: reading it, time travel by replay,
 * compaction to a retention window, and undo. Undo works the same way for every op (undo-plan.ts):
 * the entries of the call (its group) are reverted, but only if each memory still equals the
 * call's after-state (ignoring access tracking), so an undo never clobbers a later change; an
 * undo is itself a call, so undoing it redoes the original. The journal as one row per call is
 * journal-calls.ts.
 */
import type { CompactResult, JournalRetention, UndoOptions, UndoResult } from '../api.ts';
import { embed, journalFor, reportChanged, requireOpen, requireVectors, type Using } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import type { JournalEntry, JournalHorizon, JournalStore } from '../ports.ts';
import { callOp, NOT_UNDOABLE, journalCalls as readCalls, type JournalCall } from '../services/journal-calls.ts';
import { revertPatch } from '../domain/journal-patch.ts';
import { effectOf, memoryIds, patchedLast, planUndo, type UndoEffect } from '../domain/undo-plan.ts';

export type { CompactResult, JournalRetention, UndoOptions, UndoResult } from '../api.ts';
import type { Memory } from '../types.ts';
import { checkBoolean, checkId, checkInteger, checkKnownKeys, checkObject, checkTimestamp, isoTime } from '../domain/validate.ts';

export { sameState } from '../domain/undo-plan.ts';

/** The newest `n` entries, newest first. */
export async function journalTail(ctx: Using<'journal'>, n = 20): Promise<JournalEntry[]> {
  requireOpen(ctx);
  const count = checkInteger(n, 'n', 0, 100_000);
  if (count === 0) return [];
  return (await ctx.storage.journalRead({ newest: count })).reverse();
}

/** Every entry about one memory, oldest first. */
export async function history(ctx: Using<'journal'>, id: string): Promise<JournalEntry[]> {
  requireOpen(ctx);
  return ctx.storage.journalRead({ id: checkId(id) });
}

/** The error for a moment (or an entry) that compaction has dropped from the journal. */
function compacted(what: string, horizon: JournalHorizon, details: Record<string, unknown>): MemoryError {
  return new MemoryError(
    'JOURNAL_COMPACTED',
    `${what} is older than the journal's retention window: entries written before ${isoTime(horizon.ts)} were compacted away`,
    { ...details, horizonTs: horizon.ts, horizonSeq: horizon.seq },
  );
}

/**
 * The store as it was at `ts` (transaction time). It starts from the current memories and undoes,
 * newest first, every journal entry written after `ts`, so it needs only the entries after `ts`
 * and holds after compaction too. A moment before the journal's horizon (whose later entries are
 * not all kept) fails with JOURNAL_COMPACTED rather than answer with a partial state. Vectors
 * are not replayed, and access tracking (`lastAccessed`, `accessCount`) is not journaled: a
 * memory unchanged since `ts` shows its current counters.
 */
export async function stateAt(ctx: Using<'journal' | 'rows'>, ts: number): Promise<Memory[]> {
  requireOpen(ctx);
  const { storage } = ctx;
  const at = checkTimestamp(ts, 'ts');
  const horizon = await storage.journalHorizon();
  if (horizon && at < horizon.ts) throw compacted(`The state at ${isoTime(at)}`, horizon, { ts: at });
  // The memories first, then the entries: a write landing between the two reads is in the
  // entries only, and undoing it from the state it never reached gives the same answer (each
  // memory with an entry after `ts` ends as the `before` of its oldest such entry).
  const state = new Map((await storage.allMemories()).map((m) => [m.id, m]));
  const later = await storage.journalRead({ afterTs: at });
  for (const e of later.sort((a, b) => b.seq! - a.seq!)) {
    if (e.id === '*') continue;
    if (e.links) {
      const m = state.get(e.id);
      if (m) state.set(e.id, revertPatch(m, e.links));
    } else if (e.before) state.set(e.id, e.before);
    else state.delete(e.id);
  }
  // Transaction time only: a memory stored before `at` is in the state whatever its `createdAt`
  // (when its content happened) says.
  return [...state.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}


/** The reference's journal keeps 90 days; the newest 1000 entries stay whatever their age. */
export const DEFAULT_RETENTION: Required<JournalRetention> = { keepDays: 90, keepLast: 1000 };

export function checkRetention(value: unknown, field = 'journalRetention'): Required<JournalRetention> {
  const raw = checkObject<JournalRetention>(value, field);
  checkKnownKeys(raw, new Set(['keepDays', 'keepLast']), field);
  const out = { ...DEFAULT_RETENTION };
  if (raw.keepDays !== undefined) {
    if (typeof raw.keepDays !== 'number' || !Number.isFinite(raw.keepDays) || raw.keepDays < 0) {
      throw invalid(`${field}.keepDays must be a number of days, 0 or more`, { field: `${field}.keepDays` });
    }
    out.keepDays = raw.keepDays;
  }
  if (raw.keepLast !== undefined) out.keepLast = checkInteger(raw.keepLast, `${field}.keepLast`, 0);
  return out;
}

/**
 * Drops journal entries outside the retention window: older than `keepDays` and not among the
 * newest `keepLast`, never part of a call that still has an entry inside the window (so every
 * undo inside the window keeps working). Writes a `compact` entry when it dropped anything.
 */
export async function compactJournal(ctx: Using<'journal'>, options?: JournalRetention): Promise<CompactResult> {
  requireOpen(ctx);
  const given = Object.entries(checkObject<JournalRetention>(options, 'options')).filter(([, v]) => v !== undefined);
  const retention = checkRetention({ ...ctx.settings.retention, ...Object.fromEntries(given) }, 'options');
  const journal = journalFor(ctx, 'compact', { keepDays: retention.keepDays, keepLast: retention.keepLast });
  const result = await ctx.storage.journalCompact({ olderThanTs: journal.ts - retention.keepDays * 86_400, keepLast: retention.keepLast }, journal);
  // The registry remembers the newest journal seq: refresh it after the journal changed.
  ctx.durability.changed();
  return result;
}

/** Texts embedded per call while putting many memories back (a redo of an undone import). */
const EMBED_BATCH = 256;

const NO_EFFECT: UndoEffect = { removed: 0, restored: 0, reverted: 0 };

/** A short quote of a memory's text for messages. */
function quote(text: string | null | undefined): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return `"${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}"`;
}

/** The newest call that is not an undo and not already undone (by an undo still in force). */
async function newestUndoable(storage: Pick<JournalStore, 'journalKeys' | 'journalRead'>): Promise<JournalEntry> {
  for (const call of await readCalls(storage, 200)) {
    if (call.op !== 'undo' && call.undoable && call.undoneBy === null) {
      const [entry] = await storage.journalRead({ seq: call.seq });
      if (entry) return entry;
    }
  }
  throw new MemoryError('NOT_FOUND', 'Nothing to undo in the recent journal');
}

/** The newest `limit` calls (default 30), one row per call, newest first. */
export async function journalCalls(ctx: Using<'journal'>, limit?: number): Promise<JournalCall[]> {
  requireOpen(ctx);
  return readCalls(ctx.storage, limit === undefined ? 30 : checkInteger(limit, 'limit', 1, 1000));
}

/**
 * Undoes the call that wrote journal entry `seq` (default: the newest call that is not an undo
 * and is not undone already). An undo is a call too: undoing it is a redo. Refuses, changing
 * nothing, when a memory changed after that call. What it removes goes to the trash with its
 * vector, so a redo puts it back without the model; many memories are removed, and put back, in
 * one transaction each.
 */
export async function undo(ctx: Using<'graph' | 'journal' | 'rows' | 'trash'>, seq?: number, options?: UndoOptions): Promise<UndoResult> {
  requireVectors(ctx);
  const { storage } = ctx;
  const o = checkObject<UndoOptions>(options, 'options');
  checkKnownKeys(o, new Set(['dryRun']), 'options');
  const dryRun = o.dryRun === undefined ? false : checkBoolean(o.dryRun, 'dryRun');
  let target: JournalEntry | undefined;
  if (seq === undefined) {
    target = await newestUndoable(storage);
  } else {
    checkInteger(seq, 'seq', 1);
    [target] = await storage.journalRead({ seq });
    if (!target) {
      const horizon = await storage.journalHorizon();
      if (horizon && seq < horizon.seq) throw compacted(`Journal entry ${seq}`, horizon, { seq });
      throw new MemoryError('NOT_FOUND', `No journal entry ${seq}`, { seq });
    }
  }
  const group = await storage.journalRead({ group: target.group });
  const op = callOp(group);
  if (NOT_UNDOABLE.has(op)) {
    throw invalid(`A ${op} cannot be undone`, { field: 'seq', op });
  }
  const ids = memoryIds(group);
  // A memory whose change the call journaled as a links patch is unchanged since when no later entry touched it.
  const newestSeq = Math.max(...group.map((e) => e.seq ?? 0));
  const changedAfter = new Set<string>();
  for (const id of patchedLast(group)) {
    if ((await storage.journalRead({ id })).some((e) => (e.seq ?? 0) > newestSeq)) changedAfter.add(id);
  }
  const plan = planUndo(group, await storage.getMany(ids), changedAfter);
  if (!plan.ok) {
    const text = plan.now?.text ?? plan.expected?.text ?? null;
    const what = plan.now ? 'changed' : 'was removed';
    return {
      ok: false,
      op,
      seq: target.seq!,
      ids,
      effect: NO_EFFECT,
      dryRun,
      reason: `the memory ${quote(text)} (${plan.id}) ${what} after this ${op}`,
      changed: { id: plan.id, text },
    };
  }
  const effect = effectOf(plan);
  if (dryRun) return { ok: true, op, seq: target.seq!, ids, effect, dryRun };

  const journal = journalFor(ctx, 'undo', { of: target.seq, ofOp: op, ofGroup: target.group, ...effect });
  if (plan.remove.length) ctx.commit(await storage.moveToTrash(plan.remove, journal));
  if (plan.insert.length) {
    // The trash keeps what an undo (or a prune) removed, with its vector: no model needed for those.
    const kept = await storage.trashVectors(plan.insert.map((m) => m.id));
    const reused: string[] = [];
    const vectors: Float32Array[] = plan.insert.map((m) => {
      const t = kept.get(m.id);
      if (!t || t.text !== m.text) return EMPTY;
      reused.push(m.id);
      return t.vector;
    });
    const missing = plan.insert.flatMap((m, i) => (vectors[i] === EMPTY ? [i] : []));
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const slice = missing.slice(i, i + EMBED_BATCH);
      const embedded = await embed(ctx, slice.map((j) => plan.insert[j]!.text));
      slice.forEach((j, k) => (vectors[j] = embedded[k]!));
    }
    const written = await storage.insert(plan.insert, vectors, journal);
    ctx.commit(written);
    // Memories that leave the trash: those whose kept vector was reused, and those this call moved
    // there (decay pruning, quota eviction) even when their text no longer matches the trash row.
    const trashedByCall = new Set(group.filter((e) => e.op === 'trash').map((e) => e.id));
    const leaving = plan.insert.filter((m) => reused.includes(m.id) || trashedByCall.has(m.id)).map((m) => m.id);
    if (leaving.length) await storage.purgeTrash({ ids: leaving });
  }
  for (const { now, before } of plan.rewrite) {
    const [vector] = await embed(ctx, [before.text]);
    const result = await storage.replace(now, before, vector!, journal);
    if (result && (result.added.length || result.removedLabels.length)) ctx.commit(result);
  }
  if (plan.put.length) await storage.applyGraphChanges({ put: plan.put }, journal);
  reportChanged(ctx, ids.filter((id) => id !== '*'));
  return { ok: true, op, seq: target.seq!, ids, effect, dryRun };
}

const EMPTY = new Float32Array(0);
