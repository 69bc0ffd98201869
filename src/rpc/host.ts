/**
 * The worker side of the RPC surface. A registry owns the open stores of this worker (one
 * instance per store name, shared by every connection, so exactly one HNSW index per store);
 * each connection gets a host that forwards calls, turns call ids into AbortSignals and emits
 * change events after writes.
 */
import type { JudgePair } from '../core/domain/judge.ts';
import * as Comlink from 'comlink';
import { checkStoreName, storeExists, storeInUse, type MoveResult, type StoreCatalog, type StoreInfo } from '../core/catalog.ts';
import { MemoryError, invalid } from '../core/errors.ts';
import { narrowScope, scopedCall, type ConnectionScope } from '../core/scope/index.ts';
import type { StoreView } from '../core/store.ts';
import type { ProgressEvent } from '../core/types.ts';
import { checkActor } from '../core/domain/validate.ts';
import { methodSpec } from './methods.ts';
import {
  changeChannelName,
  type ChangeEvent,
  type HostApi,
  type OpenInfo,
  type OpenRequest,
  type StoreMethod,
} from './protocol.ts';

/** A store as the registry holds it: its views (`asActor`: each connection writes as its own actor) report what each call changed. */
export type OpenedStore = StoreView & {
  readonly name: string;
  readonly embedder: { id: string; dim: number; backend?: string };
};

export interface RegistryOptions {
  /** Opens a store for a request: the composition root decides adapters and asset URLs. */
  open(request: OpenRequest, onProgress?: (event: ProgressEvent) => void): Promise<OpenedStore>;
  /** Delivers change events; defaults to a BroadcastChannel per store. */
  emit?: (event: ChangeEvent) => void;
  /** True inside a SharedWorker. */
  shared?: boolean;
  clock?: () => number;
  /** The stores of the origin as a whole (list, delete, rename); without it those calls fail with STORAGE_FAILURE. */
  catalog?: StoreCatalog;
}

interface Entry {
  store: Promise<OpenedStore>;
  refs: number;
  /** Where it lives: one name is open here on one storage at a time. */
  storage: NonNullable<OpenRequest['storage']>;
}


function defaultEmitter(): (event: ChangeEvent) => void {
  const channels = new Map<string, BroadcastChannel>();
  return (event) => {
    if (typeof BroadcastChannel === 'undefined') return;
    let channel = channels.get(event.store);
    if (!channel) {
      channel = new BroadcastChannel(changeChannelName(event.store));
      channels.set(event.store, channel);
    }
    channel.postMessage(event);
  };
}

export class StoreRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly emit: (event: ChangeEvent) => void;
  readonly shared: boolean;

  constructor(private readonly options: RegistryOptions) {
    this.emit = options.emit ?? defaultEmitter();
    this.shared = options.shared ?? false;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  async acquire(request: OpenRequest, onProgress?: (event: ProgressEvent) => void): Promise<OpenedStore> {
    if (this.busy.has(request.name)) {
      throw new MemoryError('STORE_IN_USE', `Store ${JSON.stringify(request.name)} is being deleted or renamed; open it again when that is done`, { name: request.name });
    }
    let entry = this.entries.get(request.name);
    const storage = request.storage ?? 'indexeddb';
    if (entry && entry.storage !== storage) {
      throw new MemoryError('STORE_IN_USE', `Store ${JSON.stringify(request.name)} is open here on ${entry.storage}; close it before opening the one on ${storage}`, { name: request.name, storage: entry.storage });
    }
    if (!entry) {
      const store = this.options.open(request, onProgress).then((opened) => {
        // Changes the store makes on its own (live sync rounds) are announced like a call's.
        opened.watch?.((op, ids) => this.changed(request.name, op, ids));
        return opened;
      });
      entry = { store, refs: 0, storage };
      this.entries.set(request.name, entry);
      store.catch(() => {
        if (this.entries.get(request.name) === entry) this.entries.delete(request.name);
      });
    }
    entry.refs += 1;
    try {
      return await entry.store;
    } catch (error) {
      entry.refs -= 1;
      throw error;
    }
  }

  async release(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.refs -= 1;
    if (entry.refs > 0) return;
    this.entries.delete(name);
    await (await entry.store).close();
  }

  async get(name: string): Promise<OpenedStore> {
    const entry = this.entries.get(name);
    if (!entry) throw new MemoryError('CLOSED', `Store "${name}" is not open in this worker`);
    return entry.store;
  }

  /** Names being deleted or renamed: nobody may open them meanwhile. */
  private readonly busy = new Set<string>();

  private catalog(): StoreCatalog {
    if (!this.options.catalog) throw new MemoryError('STORAGE_FAILURE', 'This worker cannot list, delete or rename stores', {});
    return this.options.catalog;
  }

  /** Every store of the origin, with whether it is open here. */
  async stores(): Promise<StoreInfo[]> {
    const listed = await this.catalog().list();
    const names = new Set(listed.map((s) => s.name));
    const out: StoreInfo[] = listed.map((s) => ({ ...s, open: this.entries.get(s.name)?.storage === (s.storage ?? 'indexeddb') }));
    // A store still opening has no database listed yet: it is there all the same.
    for (const name of this.entries.keys()) if (!names.has(name)) out.push({ name, memories: null, embedder: null, createdAt: null, schemaVersion: null, open: true });
    return out;
  }

  /** Whether a store holds the name (open here, or a complete store on disk). */
  async isTaken(name: string): Promise<boolean> {
    if (this.entries.has(name)) return true;
    return (await this.catalog().list()).some((s) => s.name === name && s.embedder !== null);
  }

  /**
   * Runs a delete or rename of `name` once nobody but the caller (`ownRefs` of its references)
   * holds it: the store is closed first, and cannot be opened until the work is done.
   */
  async manage(name: string, ownRefs: number, action: 'delete' | 'rename' | 'move', work: (catalog: StoreCatalog) => Promise<void>, alsoBusy: string[] = []): Promise<void> {
    const catalog = this.catalog();
    const entry = this.entries.get(name);
    if ((entry && entry.refs > ownRefs) || this.busy.has(name) || alsoBusy.some((n) => this.busy.has(n) || this.entries.has(n))) {
      throw storeInUse(entry || this.busy.has(name) ? name : alsoBusy.find((n) => this.busy.has(n) || this.entries.has(n))!, action);
    }
    const names = [name, ...alsoBusy];
    for (const n of names) this.busy.add(n);
    try {
      if (entry) {
        this.entries.delete(name);
        await (await entry.store.catch(() => null))?.close();
      }
      await work(catalog);
    } finally {
      for (const n of names) this.busy.delete(n);
    }
  }

  changed(name: string, op: StoreMethod, ids: string[]): void {
    this.emit({ store: name, op, ids, at: this.options.clock?.() ?? Date.now() / 1000 });
  }
}

/** Frees the message port behind a comlink-proxied callback once the call is over. */
function releaseRemote(fn: unknown): void {
  const release = (fn as Record<symbol, (() => void) | undefined> | undefined)?.[Comlink.releaseProxy];
  if (typeof release === 'function') release.call(fn);
}

export type { ConnectionScope } from '../core/scope/index.ts';
export { narrowScope } from '../core/scope/index.ts';

export interface HostOptions {
  /** A scope every store opened on this connection gets, whatever the client asks for (it can only narrow it). */
  scope?: ConnectionScope;
  /** Who this connection writes as, whatever the client says (an extension page knows its caller; a content script could claim anything). */
  actor?: string;
}

/** One host per connection (page, tab, extension port). */
export function createHost(registry: StoreRegistry, hostOptions: HostOptions = {}): HostApi & { dispose(): Promise<void> } {
  const handles = new Map<number, string>();
  const scopes = new Map<number, NonNullable<OpenRequest['scope']>>();
  /** Who each handle writes as: its own `actor`, else 'lib' — never another connection's. */
  const actors = new Map<number, string>();
  const aborts = new Map<number, AbortController>();
  let nextHandle = 1;

  /** A connection whose owner imposed a scope (an extension's content script) may not touch whole stores. */
  function refuseImposedScope(method: string): void {
    if (hostOptions.scope) throw new MemoryError('PERMISSION_DENIED', `This connection is scoped: ${method} is not allowed`, { method });
  }

  /** This connection's handles on a store. */
  function ownHandles(name: string): number[] {
    return [...handles.entries()].filter(([, n]) => n === name).map(([h]) => h);
  }

  /** Drops handles whose store was deleted or renamed under them (their references went with it). */
  function forgetHandles(list: number[]): void {
    for (const h of list) {
      handles.delete(h);
      actors.delete(h);
      scopes.delete(h);
    }
  }

  function nameOf(handle: number): string {
    const name = handles.get(handle);
    if (name === undefined) throw new MemoryError('CLOSED', 'This store handle is closed');
    return name;
  }

  return {
    async open(request, onProgress) {
      if (!request || typeof request.name !== 'string' || request.name.trim() === '') {
        throw invalid('open() needs a store name', { field: 'name' });
      }
      let scope: ConnectionScope | undefined;
      try {
        if (request.actor !== undefined) checkActor(request.actor);
        scope = narrowScope(hostOptions.scope, request.scope); // validated before anything opens
      } catch (error) {
        releaseRemote(onProgress);
        throw error;
      }
      const store = await registry.acquire(request, onProgress).finally(() => releaseRemote(onProgress));
      const handle = nextHandle++;
      handles.set(handle, request.name);
      actors.set(handle, hostOptions.actor ?? request.actor ?? 'lib');
      if (scope) scopes.set(handle, scope);
      const info: OpenInfo = { handle, name: store.name, embedder: { id: store.embedder.id, dim: store.embedder.dim } };
      if (store.embedder.backend) info.backend = store.embedder.backend;
      return info;
    },

    async call(handle, method, args, callId, onProgress, judge, reranker) {
      const name = nameOf(handle);
      const spec = methodSpec(method);
      if (!spec) throw invalid(`Unknown method ${JSON.stringify(method)}`, { field: 'method' });
      if (!Array.isArray(args)) throw invalid('args must be an array', { field: 'args' });
      const opened = await registry.get(name);
      const store = opened.asActor(actors.get(handle) ?? 'lib');
      const scope = scopes.get(handle);
      const callArgs = [...args];
      let controller: AbortController | undefined;
      const delivered: Promise<unknown>[] = [];
      const at = spec.signalAt;
      if (at !== null && (callId !== undefined || onProgress || judge || reranker)) {
        const options = { ...((callArgs[at] as object | undefined) ?? {}) } as Record<string, unknown>;
        if (callId !== undefined) {
          controller = new AbortController();
          aborts.set(callId, controller);
          options.signal = controller.signal;
        }
        if (onProgress) {
          const forward = onProgress;
          // Progress is advisory: a slow or vanished page must not fail the work. Deliveries are
          // awaited before the call returns, so the last event always precedes the result.
          options.onProgress = (event: ProgressEvent) => {
            delivered.push(Promise.resolve(forward(event)).catch(() => undefined));
          };
        }
        if (judge) {
          // The page's judge, asked across the boundary; its answer is checked like any other (judge.ts).
          const ask = judge;
          options.judge = (pair: JudgePair) => ask(pair);
        }
        if (reranker) {
          // The page's reranker, back in its place; its scores are checked like any other (rerank.ts).
          const ask = reranker;
          const rerank = options.rerank !== null && typeof options.rerank === 'object' ? options.rerank : {};
          options.rerank = { ...rerank, reranker: (query: string, texts: string[]) => ask(query, texts) };
        }
        callArgs[at] = options;
      }
      try {
        // The store reports which memories the call changed, beside its result.
        let changed: string[] = [];
        const run = async (a: unknown[]): Promise<unknown> => {
          try {
            const outcome = await store.call(method, a);
            changed = outcome.changed;
            return outcome.value;
          } finally {
            await Promise.allSettled(delivered);
          }
        };
        // The connection's scope (read-only, trust ceiling, namespace) is enforced here and only here.
        const result = await scopedCall(opened, scope, method, callArgs, run);
        // An explicit dry run (undo, prune, reflect, purgeExpired) wrote nothing: no change to announce.
        const dryRun = args.some((a) => a !== null && typeof a === 'object' && (a as { dryRun?: unknown }).dryRun === true);
        if (!dryRun && (spec.changes === 'always' || spec.changes === 'partial' || (spec.changes === 'reported' && changed.length > 0))) registry.changed(name, method, changed);
        return result;
      } catch (error) {
        // A batch write that was cancelled part-way still changed the store.
        if (spec.changes === 'partial') registry.changed(name, method, []);
        throw error;
      } finally {
        if (callId !== undefined) aborts.delete(callId);
        releaseRemote(onProgress);
        releaseRemote(judge);
        releaseRemote(reranker);
      }
    },

    abort(callId) {
      aborts.get(callId)?.abort();
    },

    async release(handle) {
      const name = handles.get(handle);
      if (name === undefined) return;
      handles.delete(handle);
      actors.delete(handle);
      await registry.release(name);
    },

    async ping() {
      return { ok: true as const, stores: registry.names(), shared: registry.shared };
    },

    async stores() {
      refuseImposedScope('stores');
      return registry.stores();
    },

    async deleteStore(name) {
      refuseImposedScope('deleteStore');
      checkStoreName(name, 'name');
      const own = ownHandles(name);
      await registry.manage(name, own.length, 'delete', (catalog) => catalog.delete(name));
      forgetHandles(own);
    },

    async renameStore(from, to) {
      refuseImposedScope('renameStore');
      checkStoreName(from, 'from');
      checkStoreName(to, 'to');
      if (from === to) throw invalid('The new name is the same as the old one', { field: 'to' });
      // A name in use says so first: it is taken, whether or not that store is open somewhere.
      if (await registry.isTaken(to)) throw storeExists(to);
      const own = ownHandles(from);
      await registry.manage(from, own.length, 'rename', (catalog) => catalog.rename(from, to), [to]);
      forgetHandles(own);
      const renamed = (await registry.stores()).find((s) => s.name === to);
      return renamed ?? { name: to, memories: null, embedder: null, createdAt: null, schemaVersion: null, open: false };
    },

    async moveStore(name, to, callId, onProgress) {
      refuseImposedScope('moveStore');
      checkStoreName(name, 'name');
      if (to !== 'opfs' && to !== 'indexeddb') throw invalid("to must be 'opfs' or 'indexeddb'", { field: 'to' });
      const own = ownHandles(name);
      const controller = new AbortController();
      if (callId !== undefined) aborts.set(callId, controller);
      const delivered: Promise<unknown>[] = [];
      try {
        let moved: MoveResult | undefined;
        await registry.manage(name, own.length, 'move', async (catalog) => {
          if (!catalog.move) throw new MemoryError('STORAGE_FAILURE', 'This worker cannot move stores', { operation: 'moveStore' });
          moved = await catalog.move(name, to, {
            signal: controller.signal,
            // Progress is advisory, as a call's is: delivered before the result, never failing the move.
            ...(onProgress ? { onProgress: (event: ProgressEvent) => void delivered.push(Promise.resolve(onProgress(event)).catch(() => undefined)) } : {}),
          });
        });
        forgetHandles(own);
        return moved!;
      } finally {
        await Promise.allSettled(delivered);
        if (callId !== undefined) aborts.delete(callId);
        releaseRemote(onProgress);
      }
    },

    async dispose() {
      for (const controller of aborts.values()) controller.abort();
      aborts.clear();
      for (const handle of [...handles.keys()]) await this.release(handle);
    },
  };
}
