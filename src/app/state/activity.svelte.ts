/**
 * Activity: the journal as one row per call (an import of 10,000 memories is one row), with
 * Undo — and Redo on an undo — memory health as lists, and maintenance runs. Undo is the store's
 * own: it refuses when a memory changed since, and a call that changes more than one memory is
 * first counted (a dry run) so the confirmation can say what it will do.
 */
import type { JournalCall, MemoryClient, UndoResult } from '../../index.ts';
import { problemOf, quote, type Problem } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';
import { toasts } from './toasts.svelte.ts';

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

/** How many journal rows (calls) the tab shows at first, and more each time. */
const PAGE = 40;

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** An op as a noun phrase for "Undid …": "the import", "the edit". */
function opNoun(op: string): string {
  const nouns: Record<string, string> = {
    remember: 'remember', edit: 'edit', forget: 'forget', link: 'link', unlink: 'unlink', supersede: 'supersede', restore: 'restore',
    merge: 'merge', resolve: 'conflict resolution', import: 'import', trash: 'move to trash', restore_trash: 'restore from trash', undo: 'undo',
  };
  return nouns[op] ?? op;
}

/** The row's words: what the call did, to what. */
export function describeCall(call: JournalCall, all: readonly JournalCall[]): { what: string; subject: string } {
  const archive = typeof call.meta['archive'] === 'string' ? (call.meta['archive'] as string) : null;
  const many = call.memories > 1;
  if (call.op === 'undo' && call.undoes) {
    const target = all.find((c) => c.group === call.undoes!.group);
    // Undoing an undo is a redo of what that undo had undone.
    if (call.undoes.op === 'undo') {
      const original = target?.undoes ? all.find((c) => c.group === target.undoes!.group) : undefined;
      const inner = target?.undoes?.op ?? 'change';
      return { what: 'Redid', subject: original ? describeCall(original, all).subject : `the ${opNoun(inner)}` };
    }
    return { what: 'Undid', subject: target ? `${opNoun(call.undoes.op)}: ${describeCall(target, all).subject}` : `the ${opNoun(call.undoes.op)} (${plural(call.memories, 'memory', 'memories')})` };
  }
  if (call.op === 'import') {
    return { what: 'Imported', subject: `${plural(call.memories, 'memory', 'memories')}${archive ? ` from ${archive}` : ''}` };
  }
  if (call.op === 'export') return { what: 'Exported', subject: 'the store to an archive' };
  if (call.op === 'compact') return { what: 'Compacted the journal', subject: '' };
  const label = OP_LABELS[call.op] ?? call.op;
  if (many && call.memories > 2) return { what: label, subject: `${plural(call.memories, 'memory', 'memories')}, such as ${quote(call.subject?.text)}` };
  // A supersede, link or merge changes two: the first one names it, the row's count says two.
  return { what: label, subject: call.subject ? quote(call.subject.text, 120) : 'the whole store' };
}

/** An undo waiting for the person's yes, with what it will do. */
export interface PendingUndo {
  call: JournalCall;
  /** Redo: undoing an undo. */
  redo: boolean;
  preview: UndoResult;
}

export class ActivityState {
  calls = $state.raw<JournalCall[]>([]);
  health = $state.raw<Health | null>(null);
  maintenance = $state.raw<Maintenance | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** The call whose Undo/Redo is in flight (its seq). */
  undoing = $state<number | null>(null);
  /** An undo that changes several memories, waiting for confirmation. */
  confirming = $state.raw<PendingUndo | null>(null);
  /** Why an undo was refused, shown on its row (by seq). */
  refusals = $state.raw<Record<number, Problem>>({});
  /** A maintenance run started here is in flight. */
  running = $state(false);
  limit = $state(PAGE);

  /** Set while the Activity tab is on screen: changes from any tab then refresh it. */
  private watching = 0;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    memory.onOpen(() => {
      this.calls = [];
      this.health = null;
      this.maintenance = null;
      this.refusals = {};
      this.limit = PAGE;
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
      const [calls, health, maintenance] = await Promise.all([client.journalCalls(this.limit), client.health(), client.maintenanceStatus()]);
      this.calls = calls;
      this.health = health;
      this.maintenance = maintenance;
      this.error = null;
    } catch (error) {
      this.error = problemOf(error).message;
    } finally {
      this.loading = false;
    }
  }

  async showMore(): Promise<void> {
    this.limit += PAGE;
    await this.load();
  }

  /**
   * Undo (or, on an undo, Redo) of one call. A call that changes one memory is undone at once
   * (a toast says so); a bigger one is counted first and waits for `confirm()`.
   */
  async undo(call: JournalCall): Promise<void> {
    const client = memory.api;
    if (!client || this.undoing !== null) return;
    this.undoing = call.seq;
    this.clearRefusal(call.seq);
    try {
      if (call.memories > 1) {
        // Count first: an undo that removes memories, or changes many, waits for a yes.
        const preview = await client.undo(call.seq, { dryRun: true });
        if (!preview.ok) {
          this.refuse(call.seq, preview);
          return;
        }
        const e = preview.effect;
        if (e.removed > 1 || e.removed + e.restored + e.reverted > 5) {
          this.confirming = { call, redo: call.op === 'undo', preview };
          return;
        }
      }
      await this.apply(client, call);
    } catch (error) {
      this.refusals = { ...this.refusals, [call.seq]: problemOf(error, 'Not undone') };
    } finally {
      this.undoing = null;
    }
  }

  /** The person said yes to the pending undo. */
  async confirm(): Promise<void> {
    const pending = this.confirming;
    const client = memory.api;
    if (!pending || !client) return;
    this.confirming = null;
    this.undoing = pending.call.seq;
    try {
      await this.apply(client, pending.call);
    } catch (error) {
      this.refusals = { ...this.refusals, [pending.call.seq]: problemOf(error, 'Not undone') };
    } finally {
      this.undoing = null;
    }
  }

  cancelConfirm(): void {
    this.confirming = null;
  }

  private async apply(client: MemoryClient, call: JournalCall): Promise<void> {
    const result = await client.undo(call.seq);
    if (!result.ok) {
      this.refuse(call.seq, result);
      return;
    }
    const redo = call.op === 'undo';
    const e = result.effect;
    const parts = [e.removed ? `${plural(e.removed, 'memory', 'memories')} removed` : '', e.restored ? `${plural(e.restored, 'memory', 'memories')} back` : '', e.reverted ? `${plural(e.reverted, 'memory', 'memories')} changed back` : ''].filter(Boolean);
    toasts.push(`${redo ? 'Redone' : 'Undone'}${parts.length ? `: ${parts.join(', ')}` : ''}.`);
    await this.load();
  }

  private refuse(seq: number, result: UndoResult): void {
    const what = result.op === 'undo' ? 'redone' : 'undone';
    const memoryText = result.changed ? quote(result.changed.text) : 'a memory it touched';
    this.refusals = {
      ...this.refusals,
      [seq]: { title: `Not ${what}`, message: `Not ${what}: ${memoryText} was changed after this. Undo that change first, or edit it by hand.`, code: 'CHANGED_SINCE' },
    };
  }

  clearRefusal(seq: number): void {
    if (!(seq in this.refusals)) return;
    const next = { ...this.refusals };
    delete next[seq];
    this.refusals = next;
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
      this.error = problemOf(error).message;
    } finally {
      this.running = false;
    }
  }
}

export const activity = new ActivityState();
