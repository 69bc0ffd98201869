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
  type StoreStats,
} from '../../index.ts';
import { describe } from '../lib/errors.ts';
import type { ModelChoice } from '../lib/models.ts';
import { toasts } from './toasts.svelte.ts';

export type Phase = 'connecting' | 'ready' | 'failed';

const LAST_STORE_KEY = 'houkai-web:last-store';
const DB_PREFIX = 'houkai-web:';

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
  /** Names of the stores in this browser (from IndexedDB's database list, when available). */
  knownStores = $state<string[]>([]);
  error = $state<string | null>(null);
  /** Bumps on every change to the open store (from any tab). */
  version = $state(0);

  private client: MemoryClient | null = null;
  private unsubscribe: (() => void) | null = null;
  private listeners = new Set<ChangeListener>();
  private openListeners = new Set<() => void>();
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

  /** Called on every change to the open store; returns an unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens (or creates) a store; `embedder` picks the model of a new store (an existing one keeps its own). */
  async connect(name = this.storeName, embedder?: ModelChoice): Promise<void> {
    const store = name.trim() || 'default';
    const token = ++this.connectToken;
    this.phase = 'connecting';
    this.storeName = store;
    this.error = null;
    this.stats = null;
    this.progress = null;
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
        ...(embedder && embedder !== 'auto' ? { embedder } : {}),
        onProgress: (e) => token === this.connectToken && (this.progress = e),
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
        localStorage.setItem(LAST_STORE_KEY, store);
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

  /** Stores in this browser: IndexedDB databases named `houkai-web:<name>`. */
  async listStores(): Promise<void> {
    try {
      if (!('databases' in indexedDB)) return;
      const dbs = await indexedDB.databases();
      const names = dbs
        .map((d) => d.name ?? '')
        .filter((n) => n.startsWith(DB_PREFIX))
        .map((n) => n.slice(DB_PREFIX.length))
        .filter((n) => n && !n.includes(':'));
      this.knownStores = [...new Set([...names, this.storeName])].sort((a, b) => a.localeCompare(b));
    } catch {
      this.knownStores = [this.storeName];
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

  async add(text: string, type: MemoryType, tags: string[], importance: number): Promise<Memory | null> {
    const client = this.api;
    if (!client) return null;
    this.error = null;
    try {
      const { memory, conflicts, action } = await client.remember(text, { type, tags, importance });
      if (action === 'queued' && conflicts.length > 0) {
        // Said on the spot: the memory is kept, and the pair waits in Review for a decision.
        const kind = conflicts.some((c) => c.kind === 'contradiction') ? 'contradicts' : 'repeats';
        toasts.push(`Remembered — it ${kind} ${conflicts.length === 1 ? 'a memory you already have' : `${conflicts.length} memories you have`}.`, {
          tone: 'error',
          action: { label: 'Review', run: () => void (location.hash = '#/review') },
        });
      } else {
        toasts.push('Remembered.');
      }
      return memory;
    } catch (error) {
      this.error = describe(error);
      return null;
    }
  }

  async get(id: string): Promise<Memory | null> {
    const client = this.api;
    if (!client) return null;
    return client.get(id);
  }

  /** Saves the detail pane's edits; returns the updated memory, or null (with `error` set). */
  async edit(id: string, changes: MemoryChanges): Promise<Memory | null> {
    const client = this.api;
    if (!client) return null;
    this.error = null;
    try {
      const updated = await client.edit(id, changes);
      toasts.push('Saved.');
      return updated;
    } catch (error) {
      this.error = describe(error);
      return null;
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
        toasts.push(`Not restored: ${result.reason ?? 'the store refused'}.`, { tone: 'error' });
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
