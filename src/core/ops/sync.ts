/**
 * Sync through CouchDB's replication protocol (core/sync/): `sync` runs a round with a remote
 * (and with `live`, keeps syncing), `syncStatus` says how it goes, `stopSync` turns it off.
 * Nothing is sent anywhere unless `sync` is called.
 */
import type { SyncOptions } from '../api.ts';
import { requireVectors, type StoreContext, type Using } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import type { SyncAuth, SyncCheckpoint } from '../sync/ports.ts';
import { failed, newSession, round, serial, sessionOf, startLoop, stopSession, syncError, type SyncResult, type SyncStatus } from '../sync/session.ts';
import { checkBoolean, checkKnownKeys, checkObject, checkTrust } from '../domain/validate.ts';
import { namespaceTag } from '../scope/namespace.ts';
import { reviewable } from './conflicts.ts';
import { checkSecret, type SyncSecret } from '../sync/crypto.ts';
import { keyedReplica } from '../sync/keyed-replica.ts';
import type { SeenBefore } from '../sync/keys.ts';

/** `syncStatus().pending` counts at most this many journal entries. */
const PENDING_BOUND = 10_000;

const SYNC_KEYS = new Set(['url', 'auth', 'live', 'retries', 'namespaces', 'maxTrust', 'encryption', 'signal', 'onProgress']);

/** `encryption`: `{ passphrase }` or `{ key }`, with `newPassphrase` to change the passphrase and `remember`. */
function checkEncryption(value: unknown): { secret: SyncSecret; next?: SyncSecret; remember?: boolean } | undefined {
  if (value === undefined) return undefined;
  const o = checkObject<Record<string, unknown>>(value, 'encryption');
  checkKnownKeys(o, new Set(['passphrase', 'key', 'newPassphrase', 'remember']), 'encryption');
  if ('passphrase' in o && 'key' in o) throw invalid('encryption takes a passphrase or a key, not both', { field: 'encryption' });
  const secret = checkSecret('key' in o ? { key: o.key } : { passphrase: o.passphrase }, 'encryption');
  const remember = o.remember === undefined ? undefined : checkBoolean(o.remember, 'encryption.remember');
  const next = o.newPassphrase === undefined ? undefined : checkSecret({ passphrase: o.newPassphrase }, 'encryption.newPassphrase');
  return { secret, ...(next ? { next } : {}), ...(remember === undefined ? {} : { remember }) };
}

/** Where a store keeps the key it was asked to remember for a remote. */
const keptKeySetting = (url: string): string => `sync-key:${url}`;

/** Where a store keeps that it synced a remote end-to-end encrypted, and in which seal format (keys.ts: SeenBefore). */
const sealedSetting = (url: string): string => `sync-sealed:${url}`;

async function seenBefore(ctx: Using<'settings'>, url: string): Promise<SeenBefore | undefined> {
  const seen = (await ctx.storage.getSetting(sealedSetting(url))) as { format?: unknown } | null | undefined;
  return seen?.format === 1 || seen?.format === 2 ? { format: seen.format } : undefined;
}

/** The key this store remembers for `url` (a non-extractable CryptoKey when it came from a passphrase), or undefined. */
async function keptKey(ctx: Using<'settings'>, url: string): Promise<SyncSecret | undefined> {
  const kept = (await ctx.storage.getSetting(keptKeySetting(url))) as { key?: unknown } | null | undefined;
  return typeof CryptoKey !== 'undefined' && kept?.key instanceof CryptoKey ? { key: kept.key } : undefined;
}

/** `namespaces`: absent (the whole store) or 1–64 namespace names, as tags `ns:<name>`, sorted. */
function checkNamespaces(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > 64) throw invalid('namespaces must be a list of 1 to 64 namespace names', { field: 'namespaces' });
  return [...new Set(value.map((n) => namespaceTag(n)))].sort();
}

/** `http(s)://host[:port]/db` with no credentials in it (they go in `auth`, never in status or the journal). */
export function checkSyncUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2_000) throw invalid('url must be the address of a CouchDB database, e.g. https://couch.example.com/memories', { field: 'url' });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`url ${JSON.stringify(value.slice(0, 200))} is not a URL`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`url must be http(s), not ${url.protocol}`, { field: 'url' });
  if (url.username || url.password) throw invalid('url must not carry credentials: pass them as auth', { field: 'url' });
  if (url.search || url.hash) throw invalid('url must not carry a query or fragment', { field: 'url' });
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '' || path === '/') throw invalid('url must name a database (…/dbname)', { field: 'url' });
  return `${url.origin}${path}`;
}

function checkAuth(value: unknown): SyncAuth | undefined {
  if (value === undefined) return undefined;
  const auth = checkObject<Record<string, unknown>>(value, 'auth');
  if ('token' in auth) {
    checkKnownKeys(auth, new Set(['token']), 'auth');
    if (typeof auth.token !== 'string' || auth.token === '' || auth.token.length > 16_384) throw invalid('auth.token must be a non-empty string (a JWT)', { field: 'auth.token' });
    return { token: auth.token };
  }
  checkKnownKeys(auth, new Set(['username', 'password']), 'auth');
  if (typeof auth.username !== 'string' || auth.username === '' || typeof auth.password !== 'string') {
    throw invalid('auth must be { username, password } or { token }', { field: 'auth' });
  }
  return { username: auth.username, password: auth.password };
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One sync round with the remote database at `url`; with `live`, keeps syncing afterwards until
 * `stopSync()`, the store closes, or (in process) `signal` aborts. A new call replaces the
 * running session. An unreachable remote is retried `retries` times (default 2) with backoff.
 * @throws MemoryError INVALID_ARGUMENT (bad url or auth), SYNC_AUTH (credentials refused, no
 *   access), NOT_FOUND (no such database), SYNC_UNREACHABLE, ABORTED.
 */
export async function sync(ctx: StoreContext, options?: SyncOptions): Promise<SyncResult> {
  requireVectors(ctx);
  const opts = checkObject<SyncOptions>(options, 'options');
  checkKnownKeys(opts, SYNC_KEYS, 'options');
  const url = checkSyncUrl(opts.url);
  const auth = checkAuth(opts.auth);
  const live = opts.live === undefined ? false : checkBoolean(opts.live, 'live');
  const namespaces = checkNamespaces(opts.namespaces);
  const maxTrust = opts.maxTrust === undefined ? undefined : checkTrust(opts.maxTrust, 'maxTrust');
  const encryption = checkEncryption(opts.encryption);
  const retries = opts.retries ?? 2;
  if (!Number.isInteger(retries) || retries < 0 || retries > 10) throw invalid('retries must be a whole number from 0 to 10', { field: 'retries' });
  if (!ctx.replicas) throw new MemoryError('INVALID_ARGUMENT', 'This store was opened without a replication engine (sync: false)', { field: 'sync' });

  await stopSession(ctx.state);
  const replicas = ctx.replicas;
  // Without `encryption`, a key this store was asked to remember for this remote.
  const secret = encryption ? encryption.secret : await keptKey(ctx, url);
  const seen = await seenBefore(ctx, url);
  const replica = keyedReplica({
    url,
    open: (variant) =>
      replicas({ store: ctx.name, url, ...(auth ? { auth } : {}), ...(variant === undefined ? {} : { variant }) }).catch((error: unknown) => {
        throw syncError(error);
      }),
    ...(secret ? { secret } : {}),
    ...(encryption?.next ? { next: encryption.next } : {}),
    ...(seen ? { seen } : {}),
    onPlan: async (plan) => {
      session.status.encrypted = plan.mode === 'encrypted';
      // Once synced encrypted, never in the clear again; once upgraded, never read the old format again.
      if (plan.mode === 'encrypted' && plan.doc.v > (seen?.format ?? 0)) await ctx.storage.putSetting(sealedSetting(url), { format: plan.doc.v });
      // Remembered as the key itself (never the passphrase): derived keys cannot be read back out.
      if (encryption?.remember === true && plan.mode === 'encrypted') await ctx.storage.putSetting(keptKeySetting(url), { id: plan.ring.current.id, key: plan.ring.current.key });
      if (encryption?.remember === false) await ctx.storage.putSetting(keptKeySetting(url), null);
    },
  });
  const openCheckpoint = async (): Promise<SyncCheckpoint> => {
    const saved = await replica.readCheckpoint();
    // Another remote or other namespaces, or none yet: everything is compared once both ways (nothing
    // is duplicated: unchanged memories are neither written nor applied).
    const same = saved !== null && saved.remote === url && JSON.stringify(saved.namespaces ?? null) === JSON.stringify(namespaces ?? null);
    if (same) return saved;
    // Other namespaces on the same remote start a comparison over, but keep where the journal was
    // pushed to: a forget made since is still sent (bridge.ts pushForgets).
    const carried = saved !== null && saved.remote === url ? saved.pushedSeq : 0;
    return { replicaId: saved?.replicaId ?? ctx.ids.next(), remote: url, pushedSeq: carried, appliedSeq: 0, compared: false, ...(namespaces ? { namespaces } : {}) };
  };
  const session = newSession(ctx, replica, openCheckpoint, live, maxTrust);
  const signal = opts.signal;
  const abort = (): void => session.stop.abort();
  signal?.addEventListener('abort', abort);
  let result: SyncResult | null = null;
  let backoff = 500;
  for (let attempt = 0; ; attempt++) {
    try {
      result = await serial(session, () => round(ctx, session, { ...(signal ? { signal } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) }));
      break;
    } catch (error) {
      const e = signal?.aborted ? new MemoryError('ABORTED', 'The operation was cancelled') : syncError(error);
      const retry = e.code === 'SYNC_UNREACHABLE' && attempt < retries;
      failed(ctx, session, e, retry || live ? backoff : null);
      if (retry) {
        await delay(backoff);
        backoff *= 2;
        continue;
      }
      if (live && e.code === 'SYNC_UNREACHABLE') {
        // Live mode keeps trying in the background; the caller learns the remote is unreachable now.
        startLoop(ctx, session, backoff);
      } else {
        signal?.removeEventListener('abort', abort);
        await stopSession(ctx.state);
        session.status.state = 'failed';
      }
      throw e;
    }
  }
  if (live) startLoop(ctx, session);
  else {
    signal?.removeEventListener('abort', abort);
    await stopSession(ctx.state);
    session.status.state = 'off';
  }
  return result;
}

/** How sync goes: state, remote, last round, pending journal entries, totals, conflicts waiting, last error. */
export async function syncStatus(ctx: Using<'graph' | 'journal' | 'rows'>): Promise<SyncStatus> {
  const session = sessionOf(ctx);
  // The review queue's own list (both sides present), so the status and the queue agree.
  const conflicts = (await reviewable(ctx)).filter((c) => c.reason === 'sync_conflict').length;
  if (!session) {
    return {
      state: 'off', remote: null, encrypted: null, live: false, lastSyncAt: null, pending: 0,
      totals: { pushed: 0, applied: 0, deleted: 0, conflicts: 0, reembedded: 0, rounds: 0, sent: 0, received: 0, unreadable: 0 },
      conflictsWaiting: conflicts, error: null, nextRetryAt: null,
    };
  }
  // Entries past the checkpoint but the replicated ones (read up to a bound: a figure, not a scan).
  const after = await ctx.storage.journalAfter(session.checkpoint?.pushedSeq ?? 0, PENDING_BOUND);
  const pending = after.filter((e) => e.id !== '*' && !e.actor.startsWith('sync:')).length;
  return structuredClone({ ...session.status, pending, conflictsWaiting: conflicts });
}

/** Turns sync off (a live session stops after its current round); the replica and its checkpoint stay for the next `sync`. */
export async function stopSync(ctx: Using): Promise<{ stopped: boolean }> {
  const session = sessionOf(ctx);
  const running = session !== undefined && session.status.state !== 'off';
  await stopSession(ctx.state);
  return { stopped: running };
}
