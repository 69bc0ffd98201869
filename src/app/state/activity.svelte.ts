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

export class ActivityState {
  entries = $state.raw<Entry[]>([]);
  health = $state.raw<Health | null>(null);
  maintenance = $state.raw<Maintenance | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);

  constructor() {
    memory.onOpen(() => {
      this.entries = [];
      this.health = null;
    });
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
    if (!client || seq === undefined) return;
    try {
      const result = await client.undo(seq);
      toasts.push(result.ok ? `Undone: ${(OP_LABELS[result.op] ?? result.op).toLowerCase()}.` : `Not undone: ${result.reason}.`, result.ok ? {} : { tone: 'error' });
      await this.load();
    } catch (error) {
      this.error = describe(error);
    }
  }
}

export const activity = new ActivityState();
