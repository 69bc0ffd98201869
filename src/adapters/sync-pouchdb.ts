/**
 * The replication engine behind `sync()`: PouchDB, which speaks CouchDB's replication protocol.
 * The replica is a local PouchDB database per store and remote (IndexedDB in browsers; memory
 * in Node, where a lost replica only means the next round compares everything once), and a
 * round is PouchDB's own two-way replication with the remote. Loaded on the first `sync()`:
 * a store that never syncs never loads it.
 */
import { DOC_PREFIX, prune, type MemoryDocument, type TombstoneDocument } from '../core/sync/document.ts';
import { KEY_DOC_ID } from '../core/sync/keys.ts';
import { ReplicationError, type ReplicaChange, type ReplicaDocument, type SyncAuth, type SyncCheckpoint, type SyncReplica, type SyncReplicaFactory } from '../core/sync/ports.ts';

/** The slice of PouchDB this adapter uses (its own types are not a dependency). */
interface PouchError {
  status?: number;
  name?: string;
  message?: string;
  reason?: string;
  code?: string;
}
interface BulkResult {
  id?: string;
  ok?: boolean;
  error?: boolean | string;
  name?: string;
}
interface ReplicationResult {
  docs_written: number;
  last_seq?: number | string;
  status?: string;
}
interface Emitter<T> extends Promise<T> {
  on(event: string, listener: (arg: never) => void): Emitter<T>;
  cancel(): void;
}
interface Pouch {
  allDocs(options: { keys: string[]; include_docs: true; conflicts?: boolean } | { startkey: string; endkey: string; limit: number }): Promise<{ rows: { id?: string; key: string; error?: string; value?: { rev: string; deleted?: boolean }; doc?: ReplicaDocument | null }[] }>;
  get(id: string, options?: { rev?: string; revs?: boolean }): Promise<Record<string, unknown>>;
  put(doc: Record<string, unknown>): Promise<{ rev: string }>;
  bulkDocs(docs: object[] | { docs: object[]; new_edits?: boolean }, ...rest: unknown[]): Promise<BulkResult[]>;
  revsDiff(diff: Record<string, string[]>): Promise<Record<string, { missing?: string[] }>>;
  changes(options: Record<string, unknown>): Emitter<{ results: { id: string; seq: number | string; deleted?: boolean; changes?: { rev: string }[]; doc?: ReplicaDocument & { _conflicts?: string[] } }[]; last_seq: number | string }>;
  sync(remote: Pouch, options: Record<string, unknown>): Emitter<{ push?: ReplicationResult; pull?: ReplicationResult }>;
  info(): Promise<{ db_name?: string; update_seq?: number | string }>;
  close(): Promise<void>;
}
type PouchConstructor = new (name: string, options?: Record<string, unknown>) => Pouch;

const CHECKPOINT_ID = '_local/houkai-sync';

/** Which local database engine holds the replica. */
export type ReplicaAdapter = 'indexeddb' | 'memory';

type PouchClass = PouchConstructor & { fetch: typeof fetch; plugin(p: unknown): unknown };
const unwrap = <T>(m: unknown): T => ((m as { default?: T }).default ?? m) as T;
let core: Promise<PouchClass> | null = null;
const adapters = new Map<ReplicaAdapter, Promise<void>>();

/** PouchDB with the HTTP adapter and replication, and the local adapter asked for (each plugin registered once). */
async function loadPouch(adapter: ReplicaAdapter): Promise<PouchClass> {
  core ??= Promise.all([import('pouchdb-core'), import('pouchdb-adapter-http'), import('pouchdb-replication')]).then(([c, http, replication]) => {
    const PouchDB = unwrap<PouchClass>(c);
    PouchDB.plugin(unwrap(http));
    PouchDB.plugin(unwrap(replication));
    return PouchDB;
  });
  const PouchDB = await core;
  let registered = adapters.get(adapter);
  if (!registered) {
    registered = (adapter === 'memory' ? import('pouchdb-adapter-memory') : import('pouchdb-adapter-indexeddb')).then((m) => void PouchDB.plugin(unwrap(m)));
    adapters.set(adapter, registered);
  }
  await registered;
  return PouchDB;
}

/**
 * Origins this realm's Content-Security-Policy refused to connect to, as the browser reported them
 * (`securitypolicyviolation`): a fetch the policy blocks fails like an unreachable server, and
 * only this event says why. Nothing is listened to outside browsers.
 */
const blockedOrigins = new Map<string, string>();
const violations = globalThis as { addEventListener?: (type: string, listener: (event: { blockedURI?: string; effectiveDirective?: string }) => void) => void };
violations.addEventListener?.('securitypolicyviolation', (event) => {
  try {
    if (event.blockedURI) blockedOrigins.set(new URL(event.blockedURI).origin, event.effectiveDirective ?? 'connect-src');
  } catch {
    /* not a URL (e.g. "inline"): not a request of ours */
  }
});

/** An engine error in the bridge's terms: refused credentials, unreachable, no database, or other. */
export function classify(error: unknown, url?: string): ReplicationError {
  if (error instanceof ReplicationError) return error;
  const origin = url === undefined ? undefined : (() => { try { return new URL(url).origin; } catch { return undefined; } })();
  const directive = origin === undefined ? undefined : blockedOrigins.get(origin);
  if (origin !== undefined && directive !== undefined) {
    return new ReplicationError('unreachable', `This app's Content-Security-Policy (${directive}) blocked the request to ${origin}: the host serving the app must allow that origin (HOUKAI_SYNC_ORIGINS for this app's server), or serve CouchDB under the app's own origin`, undefined, { directive, origin });
  }
  const e = (error ?? {}) as PouchError & { result?: { errors?: PouchError[] } };
  const status = e.status;
  const text = `${e.name ?? ''} ${e.message ?? ''} ${e.reason ?? ''} ${e.code ?? ''}`;
  if (status === 401 || status === 403) return new ReplicationError('auth', `The server refused access: ${e.reason ?? e.message ?? e.name}`, status);
  if (status === 404) return new ReplicationError('missing', `No database at this address (create it on the server first): ${e.reason ?? e.message ?? e.name}`, status);
  if (status === undefined || status === 0 || /ECONNREFUSED|fetch failed|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|ECONNRESET|EPIPE|socket hang up|network|Failed to fetch/i.test(text)) {
    return new ReplicationError('unreachable', `The server cannot be reached: ${e.message ?? e.name ?? 'no answer'}`, status);
  }
  return new ReplicationError('other', `Replication failed (${status ?? 'no status'}): ${e.reason ?? e.message ?? e.name ?? 'unknown error'}`, status);
}

/** The local replica's database name: one per store and remote. */
export function replicaName(store: string, url: string): string {
  let h = 0x811c9dc5;
  for (const ch of `${store}\u0000${url}`) h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return `houkai-sync-${h.toString(16).padStart(8, '0')}`;
}

function remoteOptions(Pouch: { fetch: typeof fetch }, auth: SyncAuth | undefined): Record<string, unknown> {
  const options: Record<string, unknown> = { skip_setup: true };
  if (auth && 'token' in auth) {
    options.fetch = (url: string, init: RequestInit & { headers: Headers }) => {
      init.headers.set('Authorization', `Bearer ${auth.token}`);
      return Pouch.fetch(url, init);
    };
  } else if (auth) options.auth = { username: auth.username, password: auth.password };
  return options;
}

/**
 * A factory of PouchDB replicas; `adapter` defaults to IndexedDB where a browser runs it, memory
 * elsewhere. `levelDown`: a LevelDB-style store for the replica instead of memory (PouchDB's
 * LevelDB adapter takes any, through its `db` option) — a store in a folder keeps its replica in
 * SQLite beside it (adapters/sql/replica-sqlite.ts).
 */
export function pouchReplicas(options: { adapter?: ReplicaAdapter; levelDown?: (name: string) => unknown } = {}): SyncReplicaFactory {
  const browser = typeof (globalThis as { window?: unknown }).window !== 'undefined' || typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';
  const adapter = options.levelDown ? 'memory' : (options.adapter ?? (browser ? 'indexeddb' : 'memory'));
  return async ({ store, url, auth, variant }) => {
    const PouchDB = await loadPouch(adapter);
    const local = new PouchDB(variantName(store, url, variant), { adapter, ...(options.levelDown ? { db: options.levelDown } : {}) });
    const remote = new PouchDB(url, remoteOptions(PouchDB, auth));
    return replica(local, remote, url);
  };
}

/** The local replica's name for a variant (an encrypted session's key id), or the plain one. */
const variantName = (store: string, url: string, variant: string | undefined): string => replicaName(store, variant === undefined ? url : `${url}\u0000${variant}`);

/**
 * PouchDB's replicator asks the source for its info after each batch, to update a progress record,
 * and never handles a failure (pouchdb-replication: `src.info().then(…)` with no catch): when the
 * server dies mid-round that rejection goes unhandled, which ends a Node process (#31,
 * repro-kill-unhandled). While a round runs, the remote's `info` answers a failure with a stand-in
 * (it only feeds that progress record); the round itself still fails on its next request, with the
 * real error, as SYNC_UNREACHABLE. Returns what puts the remote's own `info` back.
 */
function answerInfoWhileReplicating(remote: Pouch): () => void {
  const own = Object.prototype.hasOwnProperty.call(remote, 'info') ? remote.info : undefined;
  const info = remote.info.bind(remote);
  remote.info = () => info().catch(() => ({ update_seq: 0 }));
  return () => {
    if (own) remote.info = own;
    else delete (remote as Partial<Pouch>).info;
  };
}

/**
 * What a replication round takes into the local replica of one document, at most: revisions it
 * lacks, and the length of a revision's history. A document beyond either was crafted (two or
 * three devices leave a leaf or two; CouchDB keeps 1,000 revisions of history by default), and
 * PouchDB's revision merge recurses once per revision written: a document with 1,250 conflicting
 * leaves overflowed the stack and ended the process (#49, repro-leaves-crash). Such a document is
 * neither fetched nor written here, and is counted unreadable; the server's copy is not ours to fix.
 */
export const MAX_REVISIONS_PER_BATCH = 64;
export const MAX_REVISION_HISTORY = 2_000;

/**
 * While a round runs, the local replica leaves out every document with more missing revisions
 * than {@link MAX_REVISIONS_PER_BATCH} (at `revsDiff`, before the replicator fetches anything)
 * or a history longer than {@link MAX_REVISION_HISTORY} (at `bulkDocs`, its only write), adding
 * its id to `refused`. Returns what puts the replica's own methods back.
 */
export function capRevisions(local: PouchLike, refused: Set<string>): () => void {
  const own = { revsDiff: Object.prototype.hasOwnProperty.call(local, 'revsDiff') ? local.revsDiff : undefined, bulkDocs: Object.prototype.hasOwnProperty.call(local, 'bulkDocs') ? local.bulkDocs : undefined };
  const revsDiff = local.revsDiff.bind(local);
  const bulk = local.bulkDocs.bind(local);
  local.revsDiff = async (diff) => {
    const missing = await revsDiff(diff);
    for (const [id, entry] of Object.entries(missing)) {
      if ((entry.missing?.length ?? 0) > MAX_REVISIONS_PER_BATCH) {
        refused.add(id);
        delete missing[id];
      }
    }
    return missing;
  };
  local.bulkDocs = (req, ...rest) => {
    if (!Array.isArray(req) && req.new_edits === false && Array.isArray(req.docs)) {
      const docs = req.docs as { _id?: unknown; _revisions?: { ids?: unknown } }[];
      const per = new Map<unknown, number>();
      const over = new Set<unknown>();
      for (const d of docs) {
        per.set(d._id, (per.get(d._id) ?? 0) + 1);
        const history = d._revisions?.ids;
        if (per.get(d._id)! > MAX_REVISIONS_PER_BATCH || (Array.isArray(history) && history.length > MAX_REVISION_HISTORY)) over.add(d._id);
      }
      if (over.size) {
        for (const id of over) refused.add(String(id));
        req = { ...req, docs: docs.filter((d) => !over.has(d._id)) };
      }
    }
    return bulk(req, ...rest);
  };
  return () => {
    for (const name of ['revsDiff', 'bulkDocs'] as const) {
      if (own[name]) (local as unknown as Record<string, unknown>)[name] = own[name];
      else delete (local as Partial<PouchLike>)[name];
    }
  };
}

/** The part of a local PouchDB database {@link capRevisions} wraps. */
export type PouchLike = Pick<Pouch, 'revsDiff' | 'bulkDocs'>;

/** The replica over a local PouchDB database and its remote (another PouchDB: an HTTP one, or any other for tests). */
export function pouchReplica(local: unknown, remote: unknown, url: string): SyncReplica {
  return replica(local as Pouch, remote as Pouch, url);
}

function replica(local: Pouch, remote: Pouch, url: string): SyncReplica {
  let remoteSeq: number | string | undefined;
  const docsOf = async (ids: string[]) => {
    const out = new Map<string, ReplicaDocument>();
    if (!ids.length) return out;
    const { rows } = await local.allDocs({ keys: ids, include_docs: true });
    for (const row of rows) {
      if (row.error || !row.value) continue;
      out.set(row.key, row.value.deleted ? ({ _id: row.key, _rev: row.value.rev, _deleted: true } as ReplicaDocument) : row.doc!);
    }
    return out;
  };
  return {
    remote: url,
    getDocs: docsOf,
    async getRevision(id, rev) {
      try {
        return (await local.get(id, { rev })) as unknown as ReplicaDocument;
      } catch (error) {
        if ((error as PouchError).status === 404) return null;
        throw error;
      }
    },
    async getAncestors(id, rev, depth) {
      const leaf = await local.get(id, { rev, revs: true }).catch(() => null);
      const history = leaf?._revisions as { start?: unknown; ids?: unknown } | undefined;
      if (!history || typeof history.start !== 'number' || !Array.isArray(history.ids)) return [];
      const out: ReplicaDocument[] = [];
      for (let i = 1; i <= depth && i < history.ids.length; i++) {
        const at = `${history.start - i}-${String(history.ids[i])}`;
        // Replication brings leaves only: an older revision's content is local when this replica
        // had it as a leaf, else asked of the remote (a failure or a compacted body ends the walk).
        const body = (await local.get(id, { rev: at }).catch(() => null)) ?? (await remote.get(id, { rev: at }).catch(() => null));
        if (!body || body._rev !== at) break;
        out.push(body as unknown as ReplicaDocument);
      }
      return out;
    },
    async putDocs(docs: (MemoryDocument | TombstoneDocument)[]) {
      const results = await local.bulkDocs(docs);
      return results.filter((r) => r.error).map((r, i) => r.id ?? docs[i]!._id);
    },
    async removeRevisions(id, revs, by) {
      if (revs.length) await local.bulkDocs(revs.map((rev) => prune(id, rev, by)));
    },
    async changes(since, limit) {
      // Every leaf of each document (`all_docs`), deleted ones too: a forget may stand on a losing branch.
      const res = await local.changes({ since, limit, include_docs: true, conflicts: true, style: 'all_docs' });
      const results: ReplicaChange[] = res.results.map((r) => {
        const { _conflicts, ...doc } = r.doc ?? ({} as ReplicaDocument & { _conflicts?: string[] });
        const conflicts = _conflicts ?? [];
        const deletedLeaves = (r.changes ?? []).map((c) => c.rev).filter((rev) => rev !== doc._rev && !conflicts.includes(rev));
        return { seq: r.seq, id: r.id, deleted: r.deleted === true, ...(r.doc ? { doc: doc as ReplicaDocument } : {}), conflicts, deletedLeaves };
      });
      return { results, lastSeq: res.last_seq };
    },
    async readCheckpoint() {
      try {
        const { _id, _rev, ...rest } = await local.get(CHECKPOINT_ID);
        return rest as unknown as SyncCheckpoint;
      } catch (error) {
        if ((error as PouchError).status === 404) return null;
        throw error;
      }
    },
    async writeCheckpoint(checkpoint) {
      let rev: string | undefined;
      try {
        rev = (await local.get(CHECKPOINT_ID))._rev as string;
      } catch {
        rev = undefined;
      }
      await local.put({ _id: CHECKPOINT_ID, ...(rev ? { _rev: rev } : {}), ...checkpoint });
    },
    async replicate({ signal, onDocs }) {
      if (signal?.aborted) throw new ReplicationError('other', 'cancelled');
      const counts = { pushed: 0, pulled: 0 };
      const refused = new Set<string>();
      const restore = answerInfoWhileReplicating(remote);
      const uncap = capRevisions(local, refused);
      const run = local.sync(remote, { batch_size: 200, batches_limit: 4 });
      const cancel = (): void => run.cancel();
      signal?.addEventListener('abort', cancel);
      run.on('change', ((info: { direction: 'push' | 'pull'; change: { docs_written: number } }) => {
        if (info.direction === 'push') counts.pushed = info.change.docs_written;
        else counts.pulled = info.change.docs_written;
        onDocs?.({ ...counts });
      }) as (arg: never) => void);
      // One-shot replication settles when both directions end; a failure of either rejects it.
      let denied: unknown = null;
      run.on('denied', ((err: unknown) => (denied ??= err)) as (arg: never) => void);
      try {
        const result = await run;
        if (signal?.aborted) throw new ReplicationError('other', 'cancelled');
        if (denied) throw classify(denied, url);
        remoteSeq = result.pull?.last_seq ?? remoteSeq;
        return { pushed: result.push?.docs_written ?? counts.pushed, pulled: result.pull?.docs_written ?? counts.pulled, ...(refused.size ? { refused: [...refused] } : {}) };
      } catch (error) {
        throw classify(error, url);
      } finally {
        uncap();
        restore();
        signal?.removeEventListener('abort', cancel);
      }
    },
    waitForRemote({ signal, timeoutMs }) {
      return new Promise<void>((resolve, reject) => {
        if (signal.aborted) return resolve();
        const feed = remote.changes({ since: remoteSeq ?? 'now', live: true, limit: 1, timeout: timeoutMs, heartbeat: false });
        let settled = false;
        const finish = (error?: unknown): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal.removeEventListener('abort', stop);
          feed.cancel();
          if (error) reject(classify(error, url));
          else resolve();
        };
        const stop = (): void => finish();
        const timer = setTimeout(stop, timeoutMs + 1_000);
        signal.addEventListener('abort', stop);
        feed.on('change', (() => finish()) as (arg: never) => void);
        feed.on('complete', (() => finish()) as (arg: never) => void);
        feed.on('error', ((err: unknown) => finish(err)) as (arg: never) => void);
        feed.catch?.(() => undefined);
      });
    },
    async inspectRemote() {
      try {
        let keyDoc: Record<string, unknown> | null = null;
        try {
          keyDoc = await remote.get(KEY_DOC_ID);
        } catch (error) {
          if ((error as PouchError).status !== 404) throw error;
        }
        const { rows } = await remote.allDocs({ startkey: DOC_PREFIX, endkey: `${DOC_PREFIX}\uffff`, limit: 1 });
        return { keyDoc, memories: rows.length > 0 };
      } catch (error) {
        throw classify(error, url);
      }
    },
    async writeRemoteKey(doc) {
      try {
        const { rev } = await remote.put(doc as unknown as Record<string, unknown>);
        return { ...doc, _rev: rev };
      } catch (error) {
        if ((error as PouchError).status === 409) return null;
        throw classify(error, url);
      }
    },
    async close() {
      await Promise.all([local.close().catch(() => undefined), remote.close().catch(() => undefined)]);
    },
  };
}
