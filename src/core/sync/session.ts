/**
 * A store's sync session: one remote at a time, a round (apply what the replica holds, push the
 * outbox, replicate both ways, apply what came), and in live mode a loop that runs a round when
 * the journal grows or the remote's changes feed speaks, backing off while the remote is
 * unreachable. Its status is what `syncStatus()` answers. Sessions hang off the store's shared
 * state, so every actor's view sees the same one, and closing the store stops it.
 */
import { forCall, withActor, type StoreContext, type StoreState, type Using } from '../context.ts';
import { MemoryError, type ErrorCode } from '../errors.ts';
import type { ProgressEvent, Trust } from '../types.ts';
import { applyReplica, pushOutbox } from './bridge.ts';
import { emptyCounts, type BridgeCounts, type BridgeRun } from './run.ts';
import { ReplicationError, type SyncCheckpoint, type SyncReplica } from './ports.ts';

/** What `syncStatus()` answers. Times are Unix seconds. */
export interface SyncStatus {
  /** 'off': never started or stopped; 'syncing': a round is running; 'idle': caught up (live: waiting for changes); 'offline': the remote is unreachable, retrying; 'failed': stopped on an error (`error`). */
  state: 'off' | 'syncing' | 'idle' | 'offline' | 'failed';
  /** The remote without credentials, or null. */
  remote: string | null;
  /** Whether the session's database is end-to-end encrypted (null until its first round has asked). */
  encrypted: boolean | null;
  live: boolean;
  /** The last round that reached the remote (push and pull are one round). */
  lastSyncAt: number | null;
  /** Local journal entries not yet pushed to the replica (counted up to 10,000). */
  pending: number;
  /** Since this session started. */
  totals: BridgeCounts & { rounds: number; sent: number; received: number; unreadable: number };
  /** Replicated conflicts waiting in the review queue. */
  conflictsWaiting: number;
  error: { code: ErrorCode; message: string; at: number } | null;
  /** When the next attempt runs while offline. */
  nextRetryAt: number | null;
}

/** What one `sync()` round did. */
export interface SyncResult extends BridgeCounts {
  remote: string;
  /** Documents the replication engine moved: to the remote, from it. */
  sent: number;
  received: number;
  durationMs: number;
}

export interface Session {
  replica: SyncReplica;
  /** Read from the replica at the session's first round (the replica opens then: keyed-replica.ts). */
  checkpoint: SyncCheckpoint | null;
  openCheckpoint: () => Promise<SyncCheckpoint>;
  status: SyncStatus;
  live: boolean;
  /** The session's trust ceiling for replicated memories (`sync({ maxTrust })`). */
  maxTrust?: Trust;
  stop: AbortController;
  loop: Promise<void> | null;
  /** Rounds run one at a time. */
  running: Promise<unknown>;
}

const sessions = new WeakMap<StoreState, Session>();

export const sessionOf = (ctx: Pick<StoreContext, 'state'>): Session | undefined => sessions.get(ctx.state);

/** The engine's failure as the library's error. */
export function syncError(error: unknown): MemoryError {
  if (error instanceof MemoryError) return error;
  if (error instanceof ReplicationError) {
    const code: ErrorCode = error.failure === 'auth' ? 'SYNC_AUTH' : error.failure === 'unreachable' ? 'SYNC_UNREACHABLE' : error.failure === 'missing' ? 'NOT_FOUND' : 'STORAGE_FAILURE';
    return new MemoryError(code, error.message, {
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.blockedBy ? { reason: 'blocked-by-policy', directive: error.blockedBy.directive, origin: error.blockedBy.origin } : {}),
    });
  }
  return new MemoryError('STORAGE_FAILURE', `Sync failed: ${(error as Error)?.message ?? String(error)}`);
}

const actorFor = (remote: string): string => `sync:${remote}`.slice(0, 128);

/** One round; the session's status follows it. */
export async function round(ctx: StoreContext, session: Session, options: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void } = {}): Promise<SyncResult> {
  const started = Date.now();
  const { replica, status } = session;
  const checkpoint = (session.checkpoint ??= await session.openCheckpoint());
  const run: BridgeRun = {
    ctx: withActor(ctx, actorFor(replica.remote)),
    replica,
    checkpoint,
    counts: emptyCounts(),
    ...(session.maxTrust ? { maxTrust: session.maxTrust } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
  const unreadable = (): void => void (status.totals.unreadable += 1);
  status.state = 'syncing';
  const replicateOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    onDocs: (c: { pushed: number; pulled: number }) => options.onProgress?.({ kind: 'sync', phase: 'replicate', done: c.pushed + c.pulled, total: null }),
  };
  const moved = { pushed: 0, pulled: 0 };
  const replicate = async (): Promise<void> => {
    const r = await replica.replicate(replicateOptions);
    for (const _ of r.refused ?? []) unreadable();
    moved.pushed += r.pushed;
    moved.pulled += r.pulled;
  };
  // A store that holds memories and has never compared them with this remote (a new key's
  // replica, a device restored from an archive) takes the remote's revisions in first: the
  // comparison then writes each memory over the revision it has, instead of as a new document in
  // conflict with the remote's. An empty store has nothing to compare: it pulls in the round
  // below, as before (a comparison after applying would only re-read what it just took in).
  const compared = checkpoint.compared ?? (checkpoint.pushedSeq > 0 || checkpoint.appliedSeq !== 0);
  if (!compared && (await ctx.storage.journalKeys({ limit: 1 })).length > 0) await replicate();
  // What an interrupted round left in the replica first, so the push never writes over a
  // replicated change this store has not seen.
  await applyReplica(run, unreadable);
  await pushOutbox(run);
  await replica.writeCheckpoint(checkpoint);
  options.onProgress?.({ kind: 'sync', phase: 'replicate', done: 0, total: null });
  await replicate();
  await applyReplica(run, unreadable);
  if (run.counts.conflicts > 0) {
    // Folding conflicts (and carrying a forget over live branches) wrote revisions to the replica: they go out in this round too.
    await replicate();
    await applyReplica(run, unreadable);
  }
  await replica.writeCheckpoint(checkpoint);
  const now = ctx.clock.now();
  const t = status.totals;
  for (const key of ['pushed', 'applied', 'deleted', 'conflicts', 'reembedded'] as const) t[key] += run.counts[key];
  t.rounds += 1;
  t.sent += moved.pushed;
  t.received += moved.pulled;
  Object.assign(status, { state: 'idle', lastSyncAt: now, error: null, nextRetryAt: null });
  return { remote: replica.remote, ...run.counts, sent: moved.pushed, received: moved.pulled, durationMs: Date.now() - started };
}

/** Runs `work` after the session's previous round (rounds never overlap). */
export function serial<T>(session: Session, work: () => Promise<T>): Promise<T> {
  const next = session.running.then(work, work);
  session.running = next.catch(() => undefined);
  return next;
}

export function newSession(ctx: Using<'rows'>, replica: SyncReplica, openCheckpoint: () => Promise<SyncCheckpoint>, live: boolean, maxTrust?: Trust): Session {
  const previous = sessions.get(ctx.state);
  const session: Session = {
    replica,
    checkpoint: null,
    openCheckpoint,
    live,
    ...(maxTrust ? { maxTrust } : {}),
    stop: new AbortController(),
    loop: null,
    running: Promise.resolve(),
    status: {
      state: 'off',
      remote: replica.remote,
      encrypted: null,
      live,
      lastSyncAt: previous?.replica.remote === replica.remote ? previous.status.lastSyncAt : null,
      pending: 0,
      totals: { ...emptyCounts(), rounds: 0, sent: 0, received: 0, unreadable: 0 },
      conflictsWaiting: 0,
      error: null,
      nextRetryAt: null,
    },
  };
  sessions.set(ctx.state, session);
  return session;
}

/** Records a failed round in the status. */
export function failed(ctx: Using, session: Session, error: MemoryError, retryInMs: number | null): void {
  const now = ctx.clock.now();
  Object.assign(session.status, {
    state: error.code === 'SYNC_UNREACHABLE' && retryInMs !== null ? 'offline' : 'failed',
    error: { code: error.code, message: error.message, at: now },
    nextRetryAt: retryInMs === null ? null : now + retryInMs / 1000,
  });
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

/** How often live mode looks at the journal for local writes (a cheap keys-only read). */
export const OUTBOX_POLL_MS = 200;
const MAX_BACKOFF_MS = 30_000;
const LONGPOLL_MS = 25_000;

/** Live mode after the first round: a round whenever the journal grows or the remote changes, until stopped. */
export function startLoop(ctx: StoreContext, session: Session, backoffMs = 1_000): void {
  const stop = session.stop.signal;
  session.loop = (async () => {
    let backoff = backoffMs;
    let failedBefore = session.status.state === 'offline';
    while (!stop.aborted && !ctx.state.closed) {
      if (failedBefore) {
        await sleep(backoff, stop);
        if (stop.aborted || ctx.state.closed) break;
      } else {
        await waitForWork(ctx, session, stop);
        if (stop.aborted || ctx.state.closed) break;
      }
      try {
        const call = forCall(ctx);
        await serial(session, () => round(call, session));
        if (call.changes.size) for (const listener of ctx.state.watchers) listener('sync', [...call.changes]);
        backoff = backoffMs;
        failedBefore = false;
      } catch (error) {
        const e = syncError(error);
        if (stop.aborted || ctx.state.closed) break;
        if (e.code === 'SYNC_UNREACHABLE') {
          failed(ctx, session, e, backoff);
          failedBefore = true;
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        } else {
          failed(ctx, session, e, null);
          break;
        }
      }
    }
    if (ctx.state.closed || stop.aborted) {
      if (session.status.state !== 'failed') session.status.state = 'off';
    }
  })();
}

/** Resolves when the journal holds entries past the checkpoint, or the remote's feed reports a change. */
async function waitForWork(ctx: Using<'journal'>, session: Session, stop: AbortSignal): Promise<void> {
  const waiting = new AbortController();
  const quit = (): void => waiting.abort();
  stop.addEventListener('abort', quit);
  const local = (async () => {
    while (!waiting.signal.aborted && !ctx.state.closed) {
      const [newest = 0] = await ctx.storage.journalKeys({ limit: 1 }).catch(() => [0]);
      if (!session.checkpoint || newest > session.checkpoint.pushedSeq) return;
      await sleep(OUTBOX_POLL_MS, waiting.signal);
    }
  })();
  const remote = session.replica.waitForRemote({ signal: waiting.signal, timeoutMs: LONGPOLL_MS }).catch(() => sleep(backoffAfterFeedError, waiting.signal));
  try {
    await Promise.race([local, remote]);
  } finally {
    waiting.abort();
    stop.removeEventListener('abort', quit);
  }
}
/** When the remote's feed cannot be asked, look again after this long (the round itself reports the error). */
const backoffAfterFeedError = 2_000;

/** Stops the store's session (live loop and replica); waits for a running round to end. */
export async function stopSession(state: StoreState): Promise<void> {
  const session = sessions.get(state);
  if (!session) return;
  session.stop.abort();
  await session.loop?.catch(() => undefined);
  await session.running.catch(() => undefined);
  if (session.status.state !== 'failed') session.status.state = 'off';
  await session.replica.close().catch(() => undefined);
}
