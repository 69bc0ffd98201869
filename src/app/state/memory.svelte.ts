/**
 * App state: one connection to the memory worker, and what the screens show. Components read
 * this and call its actions; only this module talks to the client.
 */
import { connectMemory, MemoryError, type Memory, type MemoryClient, type MemoryType, type ProgressEvent, type RecallHit, type StoreStats } from '../../index.ts';

export type Phase = 'connecting' | 'ready' | 'failed';

function describe(error: unknown): string {
  if (error instanceof MemoryError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export class MemoryState {
  phase = $state<Phase>('connecting');
  storeName = $state('default');
  progress = $state<ProgressEvent | null>(null);
  stats = $state<StoreStats | null>(null);
  backend = $state<string | undefined>(undefined);
  recent = $state<Memory[]>([]);
  query = $state('');
  results = $state<RecallHit[] | null>(null);
  searching = $state(false);
  error = $state<string | null>(null);
  notice = $state<string | null>(null);

  private client: MemoryClient | null = null;
  private unsubscribe: (() => void) | null = null;
  private searchToken = 0;

  async connect(name = 'default'): Promise<void> {
    this.phase = 'connecting';
    this.storeName = name;
    this.error = null;
    try {
      await this.client?.close();
      this.unsubscribe?.();
      this.client = await connectMemory({ name, onProgress: (e) => (this.progress = e) });
      this.backend = this.client.backend;
      this.unsubscribe = this.client.subscribe(() => void this.refresh());
      await this.refresh();
      this.phase = 'ready';
    } catch (error) {
      this.error = describe(error);
      this.phase = 'failed';
    } finally {
      this.progress = null;
    }
  }

  async refresh(): Promise<void> {
    if (!this.client) return;
    const [stats, recent] = await Promise.all([this.client.stats(), this.client.listRecent({ limit: 50 })]);
    this.stats = stats;
    this.recent = recent;
    if (this.query.trim()) await this.search(this.query);
  }

  async search(query: string): Promise<void> {
    this.query = query;
    const token = ++this.searchToken;
    if (!this.client || !query.trim()) {
      this.results = null;
      return;
    }
    this.searching = true;
    try {
      const hits = await this.client.recall(query, { k: 10, touch: false });
      if (token === this.searchToken) this.results = hits;
    } catch (error) {
      if (token === this.searchToken) this.error = describe(error);
    } finally {
      if (token === this.searchToken) this.searching = false;
    }
  }

  async add(text: string, type: MemoryType, tags: string[], importance: number): Promise<boolean> {
    if (!this.client) return false;
    this.error = null;
    try {
      await this.client.remember(text, { type, tags, importance });
      this.notice = 'Remembered.';
      return true;
    } catch (error) {
      this.error = describe(error);
      return false;
    }
  }

  async forget(id: string): Promise<void> {
    if (!this.client) return;
    try {
      await this.client.forget(id);
      this.notice = 'Forgotten.';
    } catch (error) {
      this.error = describe(error);
    }
  }
}

export const memory = new MemoryState();
