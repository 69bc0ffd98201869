/**
 * App state: the one connection to the memory worker. Components read this and call its
 * actions; only the state modules (this one and its siblings) talk to the client.
 */
import {
  connectMemory,
  type ChangeEvent,
  type Memory,
  type MemoryClient,
  type MemoryType,
  type ProgressEvent,
  type StoreInfo,
  type StoreStats,
} from '../../index.ts';
import { describe, problemOf, quote, type Problem } from '../lib/errors.ts';
import type { ModelChoice } from '../lib/models.ts';
import { toasts } from './toasts.svelte.ts';

export type Phase = 'connecting' | 'ready' | 'failed';

const LAST_STORE_KEY = 'houkai-web:last-store';
/** Set once a store has opened in this browser: later starts come from the cache. */
const VISITED_KEY = 'houkai-web:visited';

function readFlag(key: string): boolean {
  try {
    return localStorage.getItem(key) !== null;
  } catch {
    return false;
  }
}

function lastStore(): string {
  try {
    return localStorage.getItem(LAST_STORE_KEY) || 'default';
  } catch {
    return 'default';
  }
}

/** The editable fields of a memory, as the detail pane's form changes them. */
export interface MemoryChanges {
  text?: string;
  type?: MemoryType;
  tags?: string[];
  importance?: number;
  pinned?: boolean;
}

type ChangeListener = (event: ChangeEvent) => void;

export class MemoryState {
  phase = $state<Phase>('connecting');
  storeName = $state(lastStore());
  progress = $state<ProgressEvent | null>(null);
  stats = $state<StoreStats | null>(null);
  backend = $state<string | undefined>(undefined);
  /** The stores of this browser, with their size and model (the worker's catalog). */
  stores = $state.raw<StoreInfo[]>([]);
  error = $state<string | null>(null);
  /** No store has opened in this browser before: the first start sets things up. */
  firstVisit = $state(!readFlag(VISITED_KEY));
  /** When the current open started (ms), for the opening screen's clock. */
  openingSince = $state(0);
  /** Progress kinds seen while the current store opened, in order (the opening screen's steps). */
  openingSeen = $state<string[]>([]);
  /** Bumps on every change to the open store (from any tab). */
  version = $state(0);

  private client: MemoryClient | null = null;
  private unsubscribe: (() => void) | null = null;
  private listeners = new Set<ChangeListener>();
  private openListeners = new Set<() => void>();
  private manageListeners = new Set<(name: string) => Promise<void>>();
  private statsTimer: ReturnType<typeof setTimeout> | undefined;
  private connectToken = 0;

  /** The open client, for the sibling state modules. */
  get api(): MemoryClient | null {
    return this.phase === 'ready' ? this.client : null;
  }

  /** Called each time a store has opened (first start and store switches). */
  onOpen(listener: () => void): () => void {
    this.openListeners.add(listener);
    return () => this.openListeners.delete(listener);
  }

  /** Called before a store is deleted or renamed, so other connections to it can close. */
  beforeManage(listener: (name: string) => Promise<void>): () => void {
    this.manageListeners.add(listener);
    return () => this.manageListeners.delete(listener);
  }

  private async releaseOthers(name: string): Promise<void> {
    for (const listener of this.manageListeners) await listener(name).catch(() => undefined);
  }

  /** Called on every change to the open store; returns an unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Names in the store picker's list: every store of this browser, and the open one. */
  get knownStores(): string[] {
    const names = new Set(this.stores.map((s) => s.name));
    names.add(this.storeName);
    return [...names].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true }));
  }

  /**
   * Opens (or creates) `name`, closing the store open before. `remember: false` opens it without
   * making it the store the app starts with next time (the Agent demo's sandbox); `embedder`
   * picks the model of a new store (an existing one keeps its own).
   */
  async connect(name = this.storeName, options: { remember?: boolean; embedder?: ModelChoice } = {}): Promise<void> {
    const store = name.trim() || 'default';
    const token = ++this.connectToken;
    this.phase = 'connecting';
    this.storeName = store;
    this.error = null;
    this.stats = null;
    this.progress = null;
    this.openingSince = Date.now();
    this.openingSeen = [];
    try {
      this.unsubscribe?.();
      this.unsubscribe = null;
      const previous = this.client;
      this.client = null;
      await previous?.close().catch(() => undefined);
      // 'review': a conflicting memory is stored and the pair waits for the person to decide.
      const client = await connectMemory({
        name: store,
        actor: 'ui',
        conflictPolicy: 'review',
        ...(options.embedder && options.embedder !== 'auto' ? { embedder: options.embedder } : {}),
        onProgress: (e) => {
          if (token !== this.connectToken) return;
          this.progress = e;
          // 'index-open-done': the index open finished (its step is done; what is left is reading the figures).
          const kind = e.kind === 'index-open' && e.phase === 'done' ? 'index-open-done' : e.kind;
          if (!this.openingSeen.includes(kind)) this.openingSeen = [...this.openingSeen, kind];
        },
      });
      if (token !== this.connectToken) {
        await client.close();
        return;
      }
      this.client = client;
      this.backend = client.backend;
      this.unsubscribe = client.subscribe((event) => this.changed(event));
      this.stats = await client.stats();
      try {
        if (options.remember !== false) localStorage.setItem(LAST_STORE_KEY, store);
        localStorage.setItem(VISITED_KEY, String(Date.now()));
      } catch {
        /* private mode: the store still opens, it just is not remembered */
      }
      this.phase = 'ready';
      for (const listener of this.openListeners) listener();
      void this.listStores();
    } catch (error) {
      if (token !== this.connectToken) return;
      this.error = describe(error);
      this.phase = 'failed';
    } finally {
      if (token === this.connectToken) this.progress = null;
    }
  }

  /** The store most recently opened as the app's own (not the sandbox). */
  lastStore(): string {
    return lastStore();
  }

  /** Every store of this browser, with its size and model, from the worker. */
  async listStores(): Promise<void> {
    const client = this.api;
    if (!client) return;
    try {
      this.stores = await client.stores();
    } catch {
      /* the list is a convenience: the open store still works */
    }
  }

  /**
   * Deletes a store. The open one is closed first: the app moves to another store (the last
   * one of the list, else a fresh "default"). Returns a problem to show, or null.
   */
  async deleteStore(name: string): Promise<Problem | null> {
    const client = this.api;
    if (!client) return { title: 'Not open', message: 'Open a store first.' };
    try {
      await this.releaseOthers(name);
      if (name === this.storeName) {
        const next = this.stores.find((s) => s.name !== name)?.name ?? 'default';
        await client.deleteStore(name);
        if (lastStore() === name) this.forgetLastStore();
        await this.connect(next === name ? 'default' : next);
      } else {
        await client.deleteStore(name);
        await this.listStores();
      }
      toasts.push(`Deleted the store “${name}”.`);
      return null;
    } catch (error) {
      return problemOf(error, 'The store was not deleted');
    }
  }

  /** Renames a store; renaming the open one reopens it under the new name. */
  async renameStore(from: string, to: string): Promise<Problem | null> {
    const client = this.api;
    if (!client) return { title: 'Not open', message: 'Open a store first.' };
    try {
      await this.releaseOthers(from);
      await client.renameStore(from, to);
      if (from === this.storeName) await this.connect(to);
      else await this.listStores();
      toasts.push(`Renamed “${from}” to “${to}”.`);
      return null;
    } catch (error) {
      return problemOf(error, 'The store was not renamed');
    }
  }

  private forgetLastStore(): void {
    try {
      localStorage.removeItem(LAST_STORE_KEY);
    } catch {
      /* nothing remembered */
    }
  }

  private changed(event: ChangeEvent): void {
    if (event.store !== this.storeName) return;
    this.version++;
    for (const listener of this.listeners) listener(event);
    clearTimeout(this.statsTimer);
    this.statsTimer = setTimeout(() => void this.refreshStats(), 150);
  }

  async refreshStats(): Promise<void> {
    const client = this.api;
    if (!client) return;
    try {
      this.stats = await client.stats();
    } catch (error) {
      this.error = describe(error);
    }
  }

  /** Remembers a memory; returns it, or the problem to show beside the form. */
  async add(text: string, type: MemoryType, tags: string[], importance: number, createdAt?: number): Promise<{ memory: Memory } | { problem: Problem }> {
    const client = this.api;
    if (!client) return { problem: { title: 'Not open', message: 'The store is not open yet.' } };
    try {
      const { memory, conflicts, action } = await client.remember(text, { type, tags, importance, ...(createdAt === undefined ? {} : { createdAt }) });
      if (action === 'queued' && conflicts.length > 0) {
        // Said on the spot: the memory is kept, and the pair waits in Review for a decision.
        const kind = conflicts.some((c) => c.kind === 'contradiction') ? 'contradicts' : conflicts.some((c) => c.kind === 'update') ? 'updates' : 'repeats';
        toasts.push(`Remembered — it ${kind} ${conflicts.length === 1 ? 'a memory you already have' : `${conflicts.length} memories you have`}.`, {
          // Kept, and worth a look: not a failure, so not the error's red.
          tone: 'notice',
          action: { label: 'Review', run: () => void (location.hash = '#/review') },
          // Going to Review (by this button or the tab) is what it asks for: it leaves then.
          route: 'review',
        });
      } else {
        toasts.push('Remembered.');
      }
      return { memory };
    } catch (error) {
      return { problem: problemOf(error, 'Not remembered') };
    }
  }

  async get(id: string): Promise<Memory | null> {
    const client = this.api;
    if (!client) return null;
    return client.get(id);
  }

  /** Saves the detail pane's edits; returns the updated memory, or the problem to show beside the form. */
  async edit(id: string, changes: MemoryChanges): Promise<{ memory: Memory } | { problem: Problem }> {
    const client = this.api;
    if (!client) return { problem: { title: 'Not open', message: 'The store is not open.' } };
    try {
      const updated = await client.edit(id, changes);
      toasts.push('Saved.');
      return { memory: updated };
    } catch (error) {
      return { problem: problemOf(error, 'Not saved') };
    }
  }

  /**
   * Forgets a memory and offers Undo for a few seconds. Undo is the journal's: the forget's own
   * entry is undone (`undo(seq)`), so the memory comes back exactly as it was — same id, creation
   * time, links, flags and access history. The store refuses (and says why) when the id was
   * written again since.
   */
  async forget(id: string, onRestored?: (id: string) => void): Promise<boolean> {
    const client = this.api;
    if (!client) return false;
    this.error = null;
    try {
      const removed = await client.forget(id);
      if (!removed) {
        toasts.push('That memory was already gone.');
        return false;
      }
      // The journal entry this forget wrote: the newest 'forget' in the memory's history.
      const entry = (await client.history(id)).filter((e) => e.op === 'forget').at(-1);
      toasts.push('Memory forgotten.', {
        timeout: 8000,
        ...(entry?.seq !== undefined
          ? {
              action: {
                label: 'Undo',
                run: async () => {
                  if (await this.undoForget(entry.seq!)) onRestored?.(id);
                },
              },
            }
          : {}),
      });
      return true;
    } catch (error) {
      this.error = describe(error);
      return false;
    }
  }

  /** Undoes the forget recorded as journal entry `seq`; true when the memory is back. */
  async undoForget(seq: number): Promise<boolean> {
    const client = this.api;
    if (!client) return false;
    try {
      const result = await client.undo(seq);
      if (!result.ok) {
        toasts.push(`Not restored: ${quote(result.changed?.text)} was changed after it was forgotten.`, { tone: 'error' });
        return false;
      }
      toasts.push('Restored.');
      return true;
    } catch (error) {
      this.error = describe(error);
      return false;
    }
  }
}

export const memory = new MemoryState();
