/**
 * The lifecycle operations as agent tools, named and shaped as AI-Houkai's MCP server offers
 * them: `history`, `journal_tail`, `state_at`, `undo`, `purge_expired`,
 * `trash_list`, `trash_restore`, `trash_purge`. The writing ones (`undo`, `purge_expired`,
 * `trash_restore`, `trash_purge`) are whole-store operations: through a connection scoped below
 * `trusted`, read-only or to a namespace the store refuses them (PERMISSION_DENIED, as for any
 * caller), and a read-only toolset does not offer them.
 *
 * Additive to the reference: `seq` on journal entries and on `undo` (the store's journal
 * numbers its entries), `group` (the entries of one call).
 */
import { MemoryError, invalid } from '../core/errors.ts';
import type { JournalEntry, TrashEntry } from '../core/ports.ts';
import { boolean, id, integer, memoryRecord, number, objectSchema, parseTimeArgument, string, time, TIME_FORMS, type Context, type ToolSpec } from './tool-kit.ts';

export const LIFECYCLE_TOOL_NAMES = ['history', 'journal_tail', 'state_at', 'undo', 'purge_expired', 'trash_list', 'trash_restore', 'trash_purge'] as const;
export type LifecycleToolName = (typeof LIFECYCLE_TOOL_NAMES)[number];
export const LIFECYCLE_READ_TOOL_NAMES: readonly LifecycleToolName[] = ['history', 'journal_tail', 'state_at', 'trash_list'];

/** Entries the tools look through when a filter or a timestamp must be matched. */
const JOURNAL_WINDOW = 10_000;

/** The reference's `JournalEntry.summary()`: `op 1a2b3c4d «text»`. */
function summary(e: JournalEntry): string {
  const text = (e.after ?? e.before)?.text ?? e.links?.text;
  return `${e.op} ${e.id === '*' ? '*' : e.id.slice(0, 8)}${text === undefined ? '' : ` «${text.length > 60 ? `${text.slice(0, 59)}…` : text}»`}`;
}

function entryRecord(e: JournalEntry): Record<string, unknown> {
  return {
    seq: e.seq ?? null,
    ts: e.ts,
    op: e.op,
    actor: e.actor,
    id: e.id,
    before: e.before ? memoryRecord(e.before) : null,
    after: e.after ? memoryRecord(e.after) : null,
    // A change of links only: the links added and removed, not the memory whole.
    ...(e.links ? { links: { added: e.links.added.map((a) => a.link), removed: e.links.removed.map((r) => r.link) } } : {}),
    meta: e.meta,
    group: e.group ?? null,
    summary: summary(e),
  };
}

function trashRecord(t: TrashEntry): Record<string, unknown> {
  return { memory_id: t.id, deleted_at: t.deletedAt, actor: t.actor, memory: memoryRecord(t.memory) };
}

/** Entries no undo applies to (as the store's journal ops). */
const NOT_UNDOABLE = new Set(['undo', 'export', 'reindex', 'compact']);

export function lifecycleTools(ctx: Context): Record<LifecycleToolName, ToolSpec> {
  const { client } = ctx;
  return {
    history: {
      name: 'history',
      description: 'Every recorded change of one memory, oldest first: who changed what and when. Returns [{seq, ts, op, actor, id, before, after, meta, summary}].',
      inputSchema: objectSchema({ memory_id: id('Id of the memory.') }, ['memory_id']),
      async run(args) {
        return (await client.history(args.memory_id as string)).map(entryRecord);
      },
    },

    journal_tail: {
      name: 'journal_tail',
      description: 'The newest changes to the store, newest first. Returns [{seq, ts, op, actor, id, before, after, meta, summary}].',
      inputSchema: objectSchema({
        n: integer('How many entries, default 20.', 0, 1000),
        op: string('Only entries of this operation (remember, edit, forget, supersede, import, trash, undo…).', { minLength: 1, maxLength: 64 }),
        since_seconds: number('Only entries from the last this many seconds.', 0),
      }),
      async run(args) {
        const n = (args.n as number | undefined) ?? 20;
        const filtered = args.op !== undefined || args.since_seconds !== undefined;
        const since = args.since_seconds === undefined ? -Infinity : ctx.now() - (args.since_seconds as number);
        const entries = (await client.journalTail(filtered ? JOURNAL_WINDOW : n)).filter((e) => (args.op === undefined || e.op === args.op) && e.ts >= since);
        return entries.slice(0, n).map(entryRecord);
      },
    },

    state_at: {
      name: 'state_at',
      description: `The memories as they were at a past moment (transaction time), rebuilt from the journal. ts: ${TIME_FORMS}. Returns {ts, count, memories}.`,
      inputSchema: objectSchema({ ts: time('The moment.') }, ['ts']),
      async run(args) {
        const ts = parseTimeArgument(args.ts, 'ts', ctx.now());
        const memories = await client.stateAt(ts);
        return { ts, count: memories.length, memories: memories.map(memoryRecord) };
      },
    },

    undo: {
      name: 'undo',
      description:
        'Undo one recorded change (the whole call that made it): the newest one by default, the one at `ts`, the newest one of `memory_id`, or entry `seq`. ' +
        'Refused when a memory changed since. Returns {ok, op, id, ts, actor, seq, error}.',
      destructive: true,
      inputSchema: objectSchema({
        ts: number('Timestamp of the entry to undo (from journal_tail or history), to the millisecond.', 0),
        memory_id: id('Undo the newest change of this memory.'),
        seq: integer('Sequence number of the entry to undo.', 1),
      }),
      async run(args) {
        const given = ['ts', 'memory_id', 'seq'].filter((k) => args[k] !== undefined);
        if (given.length > 1) throw invalid(`Pass at most one of ts, memory_id and seq — got ${given.join(', ')}`, { field: given[1] });
        let target: JournalEntry | undefined;
        if (args.memory_id !== undefined) {
          target = (await client.history(args.memory_id as string)).reverse().find((e) => !NOT_UNDOABLE.has(e.op) && e.meta['undone'] !== true);
          if (!target) throw new MemoryError('NOT_FOUND', `Nothing to undo for memory ${JSON.stringify(args.memory_id)}`, { id: args.memory_id });
        } else if (args.ts !== undefined) {
          target = (await client.journalTail(JOURNAL_WINDOW)).find((e) => Math.abs(e.ts - (args.ts as number)) < 1e-3);
          if (!target) throw new MemoryError('NOT_FOUND', `No journal entry at ts ${JSON.stringify(args.ts)}`, { ts: args.ts });
        }
        const seq = target?.seq ?? (args.seq as number | undefined);
        const result = await client.undo(seq);
        const [entry] = target ? [target] : (await client.journalTail(JOURNAL_WINDOW)).filter((e) => e.seq === result.seq);
        return {
          ok: result.ok,
          op: result.op,
          id: entry?.id ?? result.ids[0] ?? null,
          ts: entry?.ts ?? null,
          actor: entry?.actor ?? null,
          seq: result.seq,
          error: result.ok ? null : (result.reason ?? 'not undone'),
        };
      },
    },

    purge_expired: {
      name: 'purge_expired',
      description: 'Delete the memories whose TTL has passed (dry_run lists them only). Returns {purged, dry_run, ids}.',
      destructive: true,
      inputSchema: objectSchema({ dry_run: boolean('Only list what would be purged. Default false.') }),
      async run(args) {
        const r = await client.purgeExpired({ dryRun: (args.dry_run as boolean | undefined) ?? false });
        return { purged: r.purged, dry_run: r.dryRun, ids: r.ids };
      },
    },

    trash_list: {
      name: 'trash_list',
      description: 'Memories in the trash (moved there by decay pruning or the quota), oldest first. Returns [{memory_id, deleted_at, actor, memory}].',
      inputSchema: objectSchema({}),
      async run() {
        return (await client.trashList()).map(trashRecord);
      },
    },

    trash_restore: {
      name: 'trash_restore',
      description: 'Bring a memory back from the trash, with its vector, id and links. Returns {restored, id, memory}.',
      destructive: false,
      idempotent: true,
      inputSchema: objectSchema({ memory_id: id('Id of the trashed memory.') }, ['memory_id']),
      async run(args) {
        const memory = await client.trashRestore(args.memory_id as string);
        return { restored: memory !== null, id: args.memory_id, memory: memory ? memoryRecord(memory) : null };
      },
    },

    trash_purge: {
      name: 'trash_purge',
      description: 'Delete trashed memories for good: one (memory_id), those trashed more than older_than_days ago, or all of them. Irreversible. Returns {purged}.',
      destructive: true,
      inputSchema: objectSchema({
        memory_id: id('Only this memory.'),
        older_than_days: integer('Only entries trashed more than this many days ago.', 0),
      }),
      async run(args) {
        if (args.memory_id !== undefined && args.older_than_days !== undefined) {
          throw invalid('Pass memory_id or older_than_days, not both', { field: 'older_than_days' });
        }
        const purged = await client.trashPurge({
          ...(args.memory_id === undefined ? {} : { id: args.memory_id as string }),
          ...(args.older_than_days === undefined ? {} : { olderThanDays: args.older_than_days as number }),
        });
        return { purged };
      },
    },
  };
}
