/**
 * Activity: the journal (newest first) with undo, memory health, and maintenance runs. Reads
 * through the client only; undo is the store's own (it refuses when a memory changed since).
 */
import type { MemoryClient } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';
import { toasts } from './toasts.svelte.ts';

type Entry = Awaited<ReturnType<MemoryClient['journalTail']>>[number];
type Health = Awaited<ReturnType<MemoryClient['health']>>;
type Maintenance = Awaited<ReturnType<MemoryClient['maintenanceStatus']>>;

export const OP_LABELS: Record<string, string> = {
  remember: 'Remembered',
  edit: 'Edited',
  forget: 'Forgot',
  link: 'Linked',
  unlink: 'Unlinked',
  supersede: 'Superseded',
  restore: 'Restored',
  merge: 'Merged',
  resolve: 'Resolved a conflict',
  import: 'Imported',
  export: 'Exported',
  trash: 'Moved to trash',
  restore_trash: 'Restored from trash',
  reindex: 'Re-embedded',
  undo: 'Undid',
  compact: 'Compacted the journal',
};

/** Journal sequence numbers that a later entry undid (an undo's `meta.of`). */
export function undoneSeqs(entries: readonly Entry[]): Set<number> {
  const out = new Set<number>();
  for (const e of entries) if (e.op === 'undo' && typeof e.meta['of'] === 'number') out.add(e.meta['of']);
  return out;
}

export class ActivityState {
  entries = $state.raw<Entry[]>([]);
  health = $state.raw<Health | null>(null);
  maintenance = $state.raw<Maintenance | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** The entry whose Undo is in flight. */
  undoing = $state<number | null>(null);
  /** A maintenance run started here is in flight. */
  running = $state(false);

  /** Set while the Activity tab is on screen: changes from any tab then refresh it. */
  private watching = 0;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    memory.onOpen(() => {
      this.entries = [];
      this.health = null;
      this.maintenance = null;
      if (this.watching) void this.load();
    });
    memory.onChange(() => {
      if (!this.watching) return;
      clearTimeout(this.refreshTimer);
      this.refreshTimer = setTimeout(() => void this.load(), 300);
    });
  }

  /** Keeps the view fresh while it is shown; returns the function that stops that. */
  watch(): () => void {
    this.watching++;
    void this.load();
    return () => {
      this.watching--;
      clearTimeout(this.refreshTimer);
    };
  }

  async load(): Promise<void> {
    const client = memory.api;
    if (!client) return;
    this.loading = true;
    try {
      const [entries, health, maintenance] = await Promise.all([client.journalTail(50), client.health(), client.maintenanceStatus()]);
      this.entries = entries;
      this.health = health;
      this.maintenance = maintenance;
      this.error = null;
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.loading = false;
    }
  }

  async undo(seq: number | undefined): Promise<void> {
    const client = memory.api;
    if (!client || seq === undefined || this.undoing !== null) return;
    this.undoing = seq;
    try {
      const result = await client.undo(seq);
      toasts.push(result.ok ? `Undone: ${(OP_LABELS[result.op] ?? result.op).toLowerCase()}.` : `Not undone: ${result.reason}.`, result.ok ? {} : { tone: 'error' });
      await this.load();
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.undoing = null;
    }
  }

  /** Runs the background jobs that are switched on (TTL purge and trash retention by default) now. */
  async runMaintenance(): Promise<void> {
    const client = memory.api;
    const status = this.maintenance;
    if (!client || this.running) return;
    this.running = true;
    try {
      const jobs: ('purge' | 'trash' | 'decay' | 'reflect')[] = ['purge', 'trash'];
      if (status?.config.decay) jobs.push('decay');
      if (status?.config.reflect) jobs.push('reflect');
      const runs = await client.runMaintenance(jobs);
      if (runs.length === 0) toasts.push('Maintenance is already running in another tab.');
      else if (runs.every((r) => r.ok)) toasts.push('Maintenance done.');
      else toasts.push(`Maintenance: ${runs.filter((r) => !r.ok).map((r) => r.job).join(', ')} failed.`, { tone: 'error' });
      await this.load();
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.running = false;
    }
  }
}

export const activity = new ActivityState();
