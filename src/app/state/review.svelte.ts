/**
 * The conflict review queue: memories stored under the 'review' policy whose conflicts wait for
 * the person to decide. Nothing here resolves anything on its own.
 */
import type { Memory } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';
import { toasts } from './toasts.svelte.ts';

export type Resolution = 'supersede' | 'keep_both' | 'drop_new';

export interface PendingPair {
  id: string;
  kind: 'contradiction' | 'update' | 'duplicate';
  reason: string;
  similarity: number;
  createdAt: number;
  new: Memory;
  old: Memory;
}

const REASONS: Record<string, string> = {
  negation_diff: 'One says the opposite of the other (a negation differs)',
  value_mismatch: 'They give different values for the same thing',
  swapped_alternatives: 'They swap the same alternatives',
  polarity_diff: 'They carry opposite polarity',
  custom_fn: 'Your contradiction check flagged them',
  similarity: 'They say nearly the same thing',
  sync_conflict: 'Edited on two devices before they synced: every device kept the other edit',
};

export function reasonText(reason: string): string {
  return REASONS[reason] ?? reason;
}

export class ReviewState {
  items = $state.raw<PendingPair[]>([]);
  loading = $state(false);
  busy = $state<string | null>(null);
  error = $state<string | null>(null);

  constructor() {
    memory.onOpen(() => void this.load());
    memory.onChange(() => void this.load());
  }

  async load(): Promise<void> {
    const client = memory.api;
    if (!client) return;
    this.loading = true;
    try {
      const pending = await client.listPendingConflicts({ limit: 200 });
      this.items = pending.filter((p) => p.new && p.old) as PendingPair[];
      this.error = null;
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.loading = false;
    }
  }

  async resolve(id: string, resolution: Resolution): Promise<void> {
    const client = memory.api;
    if (!client || this.busy) return;
    this.busy = id;
    try {
      await client.resolveConflict(id, resolution);
      const label = resolution === 'supersede' ? 'The newer memory replaces the older one.' : resolution === 'keep_both' ? 'Both kept; marked as contradicting.' : 'The new memory was dropped.';
      toasts.push(label);
      await this.load();
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.busy = null;
    }
  }
}

export const review = new ReviewState();
