/**
 * The in-memory adapter for the `MemoryStorage` port: the same contract as the Dexie adapter
 * (test/storage.contract.test.ts runs both), held in maps for the life of the object. For tests
 * that need no IndexedDB, short-lived agent stores, and as the second backend that keeps the
 * port honest. Nothing survives the process.
 *
 * Every write checks everything first (held rows, leases, missing ids) and only then changes the
 * maps, with no await in between: a write lands whole or not at all, as a transaction would.
 * Values are copied in and out (structured clone), so a caller never shares a row with storage.
 */
import { MemoryError } from '../core/errors.ts';
import { roundToHalf } from '../core/domain/half-float.ts';
import { lexicalFields, nominateCandidates, type LexicalFields } from '../core/domain/lexical-index.ts';
import type {
  GraphChanges,
  ImportLease,
  IndexDelta,
  JournalContext,
  JournalEntry,
  JournalHorizon,
  LexicalCandidate,
  MemoryStorage,
  StoreMeta,
  TrashEntry,
} from '../core/ports.ts';
import type { PendingConflict } from '../core/domain/review.ts';
import { sameState } from '../core/domain/undo-plan.ts';
import { compactEntry } from '../core/domain/journal-patch.ts';
import { MEMORY_TYPES, type Memory } from '../core/types.ts';

interface Row extends LexicalFields {
  memory: Memory;
  label: number;
  /** A superseded memory whose pin moved to its superseder. */
  pinMoved?: boolean;
}
interface StoredVector {
  id: string;
  vector: Float32Array;
  gen: number;
}
interface UndoRecord {
  kind: 'inserted' | 'overwritten';
  row?: Row;
  vector?: Float32Array;
}
interface TrashRow extends TrashEntry {
  seq: number;
  vector?: Float32Array;
}
type Entry = { id: string; before: Memory | null; after: Memory | null; op?: string };

const LEASE = 'importLease:';
const HORIZON = 'journalHorizon';
const CANARY = 'canary';

const copy = <T>(value: T): T => structuredClone(value);
const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);


/** A fresh, empty in-memory storage. */
export function createMemoryStorage(): MemoryStorage {
  let meta: StoreMeta | undefined;
  let closed = false;
  const settings = new Map<string, unknown>();
  const rows = new Map<string, Row>();
  const labels = new Map<number, string>();
  const vectors = new Map<number, StoredVector>();
  const tombstones = new Map<number, number>();
  const postings = new Map<string, Set<string>>();
  const staged = new Map<string, Map<string, { contentHash: string; vector: Float32Array }>>();
  const undoLogs = new Map<string, Map<string, UndoRecord>>();
  const conflicts = new Map<string, PendingConflict>();
  const journal: JournalEntry[] = [];
  let nextSeq = 1;
  let trash: TrashRow[] = [];
  let nextTrashSeq = 1;

  function open(): void {
    if (closed) throw new MemoryError('STORAGE_FAILURE', 'This in-memory storage is closed', { operation: 'use' });
  }

  function requireMeta(): StoreMeta {
    if (!meta) throw new MemoryError('STORAGE_FAILURE', 'The store has no metadata row');
    return meta;
  }

  /** The next generation and `labelsNeeded` fresh labels; the lexical totals move by `lexical`. */
  function bump(labelsNeeded: number, lexical = { docs: 0, length: 0 }): { generation: number; firstLabel: number } {
    const current = requireMeta();
    const firstLabel = current.nextLabel;
    meta = {
      ...current,
      generation: current.generation + 1,
      nextLabel: current.nextLabel + labelsNeeded,
      lexicalDocs: (current.lexicalDocs ?? 0) + lexical.docs,
      lexicalLength: (current.lexicalLength ?? 0) + lexical.length,
    };
    return { generation: meta.generation, firstLabel };
  }

  function rowFor(memory: Memory, label: number, pinMoved?: boolean): Row {
    return { memory: copy(memory), label, ...lexicalFields(memory.text), ...(pinMoved ? { pinMoved: true } : {}) };
  }

  function putRow(row: Row): void {
    const previous = rows.get(row.memory.id);
    if (previous) dropRow(previous);
    rows.set(row.memory.id, row);
    labels.set(row.label, row.memory.id);
    for (const term of row.terms) {
      let ids = postings.get(term);
      if (!ids) postings.set(term, (ids = new Set()));
      ids.add(row.memory.id);
    }
  }

  function dropRow(row: Row): void {
    rows.delete(row.memory.id);
    if (labels.get(row.label) === row.memory.id) labels.delete(row.label);
    for (const term of row.terms) {
      const ids = postings.get(term);
      ids?.delete(row.memory.id);
      if (ids?.size === 0) postings.delete(term);
    }
  }

  /** Removes a row with its vector and tombstones its label. */
  function removeRow(row: Row, generation: number): void {
    dropRow(row);
    vectors.delete(row.label);
    tombstones.set(row.label, generation);
  }

  function leasedImports(): string[] {
    return [...settings.keys()].filter((k) => k.startsWith(LEASE)).map((k) => k.slice(LEASE.length));
  }

  /** BUSY when an import in progress holds one of these ids (its rollback would undo the write). */
  function refuseHeld(ids: readonly string[], except?: string): void {
    for (const importId of leasedImports()) {
      if (importId === except) continue;
      const log = undoLogs.get(importId);
      const held = log ? ids.find((id) => log.has(id)) : undefined;
      if (held !== undefined) {
        throw new MemoryError('BUSY', `Memory ${JSON.stringify(held)} is being written by an import in progress; try again when it has finished`, { id: held, importId });
      }
    }
  }

  function requireLease(importId: string): ImportLease {
    const lease = settings.get(`${LEASE}${importId}`) as ImportLease | undefined;
    if (!lease) {
      throw new MemoryError('ABORTED', 'This import was rolled back by another owner of the store (its lease had lapsed); nothing of it was kept', {
        reason: 'lease-lost',
        importId,
      });
    }
    return lease;
  }

  function append(ctx: JournalContext | undefined, entries: Entry[]): void {
    if (!ctx) return;
    for (const e of entries.map(compactEntry)) {
      journal.push({
        seq: nextSeq++,
        ts: ctx.ts,
        op: e.op ?? ctx.op,
        actor: ctx.actor,
        id: e.id,
        before: copy(e.before),
        after: copy(e.after),
        ...(e.links ? { links: copy(e.links) } : {}),
        meta: copy(ctx.meta ?? {}),
        group: ctx.group,
      });
    }
  }

  function currentGeneration(): number {
    return requireMeta().generation;
  }

  function liveRows(): Row[] {
    return [...rows.values()].sort((a, b) => byId(a.memory.id, b.memory.id));
  }

  const storage: MemoryStorage = {
    async readMeta() {
      open();
      return meta && copy(meta);
    },

    async initMeta(initial) {
      open();
      meta ??= copy(initial);
      return copy(meta);
    },

    async insert(memories, vecs, ctx) {
      open();
      refuseHeld(memories.map((m) => m.id));
      const incoming = new Set<string>();
      const clash = memories.find((m) => rows.has(m.id) || incoming.size === incoming.add(m.id).size);
      if (clash) throw new MemoryError('STORAGE_FAILURE', `A memory with id ${JSON.stringify(clash.id)} already exists`, { operation: 'insert' });
      const fresh = memories.map((m) => rowFor(m, 0));
      const { generation, firstLabel } = bump(memories.length, { docs: memories.length, length: fresh.reduce((s, r) => s + r.termLength, 0) });
      const out = fresh.map((row, i) => {
        row.label = firstLabel + i;
        putRow(row);
        vectors.set(row.label, { id: row.memory.id, vector: roundToHalf(vecs[i]!), gen: generation });
        return row.label;
      });
      append(ctx, memories.map((m) => ({ id: m.id, before: null, after: m })));
      return { labels: out, added: out.map((label) => ({ label, vector: vectors.get(label)!.vector })), removedLabels: [], generation };
    },

    async replace(expected, next, vector, ctx) {
      open();
      refuseHeld([expected.id]);
      const current = rows.get(expected.id);
      if (!current || !sameState(current.memory, expected)) return null;
      append(ctx, [{ id: next.id, before: current.memory, after: next }]);
      if (!vector) {
        putRow(rowFor(next, current.label, current.pinMoved));
        return { label: current.label, added: [], removedLabels: [], generation: currentGeneration() };
      }
      const row = rowFor(next, 0);
      const { generation, firstLabel } = bump(1, { docs: 0, length: row.termLength - current.termLength });
      removeRow(current, generation);
      row.label = firstLabel;
      putRow(row);
      vectors.set(firstLabel, { id: next.id, vector: roundToHalf(vector), gen: generation });
      return { label: firstLabel, removedLabel: current.label, added: [{ label: firstLabel, vector: vectors.get(firstLabel)!.vector }], removedLabels: [current.label], generation };
    },

    async remove(id, ctx) {
      open();
      refuseHeld([id]);
      const current = rows.get(id);
      if (!current) return undefined;
      append(ctx, [{ id, before: current.memory, after: null }]);
      const { generation } = bump(0, { docs: -1, length: -current.termLength });
      removeRow(current, generation);
      return { memory: copy(current.memory), label: current.label, added: [], removedLabels: [current.label], generation };
    },

    async touch(ids, now) {
      open();
      const out: Memory[] = [];
      for (const id of ids) {
        const row = rows.get(id);
        if (!row) continue;
        row.memory = { ...row.memory, lastAccessed: now, accessCount: row.memory.accessCount + 1 };
        out.push(copy(row.memory));
      }
      return out;
    },

    async get(id) {
      open();
      const row = rows.get(id);
      return row && copy(row.memory);
    },

    async getByLabels(wanted) {
      open();
      const out = new Map<number, Memory>();
      for (const label of wanted) {
        const id = labels.get(label);
        const row = id === undefined ? undefined : rows.get(id);
        if (row) out.set(label, copy(row.memory));
      }
      return out;
    },

    async list(query) {
      open();
      if (query.limit <= 0) return [];
      const before = (m: Memory): boolean =>
        query.before === undefined ||
        m.createdAt < query.before ||
        (query.beforeId !== undefined && m.createdAt === query.before && m.id < query.beforeId);
      return [...rows.values()]
        .map((r) => r.memory)
        .filter((m) => before(m) && (query.includeSuperseded || m.supersededBy === '') && (query.includeExpired || m.expiresAt <= 0 || m.expiresAt > query.now))
        .sort((a, b) => b.createdAt - a.createdAt || byId(b.id, a.id))
        .slice(0, query.limit)
        .map(copy);
    },

    async count() {
      open();
      return rows.size;
    },

    async counts() {
      open();
      const byType: Record<string, number> = Object.fromEntries(MEMORY_TYPES.map((t) => [t, 0]));
      let superseded = 0;
      for (const { memory } of rows.values()) {
        if (memory.supersededBy !== '') superseded += 1;
        if (memory.type in byType) byType[memory.type]! += 1;
      }
      return { total: rows.size, superseded, byType };
    },

    async aggregate({ includeSuperseded, createdEdges }) {
      open();
      const tagCounts = new Map<string, number>();
      const created = new Array<number>(Math.max(0, createdEdges.length - 1)).fill(0);
      let counted = 0;
      for (const { memory } of rows.values()) {
        if (!includeSuperseded && memory.supersededBy !== '') continue;
        counted += 1;
        for (const tag of new Set(memory.tags)) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
        if (created.length && memory.createdAt >= createdEdges[0]! && memory.createdAt < createdEdges[createdEdges.length - 1]!) {
          let bucket = 0;
          while (memory.createdAt >= createdEdges[bucket + 1]!) bucket++;
          created[bucket]!++;
        }
      }
      return { tagCounts: new Map([...tagCounts].sort((a, b) => byId(a[0], b[0]))), created, counted };
    },

    async countExpired(now) {
      open();
      let n = 0;
      for (const { memory } of rows.values()) if (!memory.supersededBy && memory.expiresAt > 0 && memory.expiresAt <= now) n += 1;
      return n;
    },

    async vectorCount() {
      open();
      return vectors.size;
    },

    async scanVectors(visit, options = {}) {
      open();
      const batchSize = options.batchSize ?? 2000;
      const after = options.afterGeneration;
      const chosen = [...vectors].filter(([, v]) => after === undefined || v.gen > after).sort((a, b) => a[0] - b[0]);
      for (let i = 0; i < chosen.length; i += batchSize) {
        const batch = chosen.slice(i, i + batchSize);
        await visit(batch.map(([label]) => label), batch.map(([, v]) => v.vector));
      }
    },

    async tombstonesAfter(afterGeneration) {
      open();
      return [...tombstones].filter(([, gen]) => gen > afterGeneration).map(([label]) => label);
    },

    async pruneTombstones(upToGeneration) {
      open();
      for (const [label, gen] of tombstones) if (gen <= upToGeneration) tombstones.delete(label);
    },

    async stageVectors(entries, embedderId) {
      open();
      let stage = staged.get(embedderId);
      if (!stage) staged.set(embedderId, (stage = new Map()));
      for (const e of entries) stage.set(e.id, { contentHash: e.contentHash, vector: roundToHalf(e.vector) });
    },

    async stagedIds(embedderId) {
      open();
      return new Map([...(staged.get(embedderId) ?? new Map<string, { contentHash: string }>())].map(([id, s]) => [id, s.contentHash]));
    },

    async commitStaged(embedderId, dim, ctx) {
      open();
      const importing = leasedImports();
      if (importing.length) throw new MemoryError('BUSY', 'An import is in progress; re-embed when it has finished', { importId: importing[0] });
      const current = requireMeta();
      const stage = staged.get(embedderId) ?? new Map<string, { contentHash: string; vector: Float32Array }>();
      const all = liveRows();
      const missing = all.filter((r) => stage.get(r.memory.id)?.contentHash !== r.memory.contentHash);
      if (missing.length > 0) {
        throw new MemoryError('EMBEDDER_MISMATCH', `${missing.length} memories have no staged vector`, { missing: missing.slice(0, 10).map((r) => r.memory.id) });
      }
      append(ctx, [{ id: '*', before: null, after: null }]);
      const generation = current.generation + 1;
      let label = current.nextLabel;
      vectors.clear();
      tombstones.clear();
      labels.clear();
      for (const row of all) {
        row.label = label++;
        labels.set(row.label, row.memory.id);
        vectors.set(row.label, { id: row.memory.id, vector: stage.get(row.memory.id)!.vector, gen: generation });
      }
      staged.clear();
      meta = { ...current, embedderId, dim, generation, nextLabel: label };
      return { generation };
    },

    async ids() {
      open();
      return liveRows().map(({ memory }) => ({ id: memory.id, text: memory.text, contentHash: memory.contentHash }));
    },

    async lexicalStats() {
      open();
      const documents = meta?.lexicalDocs ?? 0;
      return { documents, averageLength: documents > 0 ? (meta?.lexicalLength ?? 0) / documents : 0 };
    },

    async lexicalCandidates(terms, limit) {
      open();
      const documents = meta?.lexicalDocs ?? 0;
      const df = new Map([...new Set(terms)].map((t) => [t, postings.get(t)?.size ?? 0] as const));
      // Postings in id order, as an IndexedDB index hands out its primary keys.
      const best = await nominateCandidates(df, documents, limit, async (term, max) => [...(postings.get(term) ?? [])].sort(byId).slice(0, max));
      const candidates: LexicalCandidate[] = [];
      for (const id of best) {
        const row = rows.get(id);
        if (row) candidates.push({ memory: copy(row.memory), label: row.label, terms: [...row.terms], termCounts: [...row.termCounts], termLength: row.termLength });
      }
      return { candidates, documentFrequencies: df };
    },

    async hasPositivePolarity() {
      open();
      for (const { memory } of rows.values()) if (memory.polarity === 1) return true;
      return false;
    },

    async lexicalTermsOf(wanted) {
      open();
      const out = new Map<number, { terms: string[]; termCounts: number[]; termLength: number }>();
      for (const label of wanted) {
        const id = labels.get(label);
        const row = id === undefined ? undefined : rows.get(id);
        if (row) out.set(label, { terms: [...row.terms], termCounts: [...row.termCounts], termLength: row.termLength });
      }
      return out;
    },

    async vectorsOf(wanted) {
      open();
      const out = new Map<number, Float32Array>();
      for (const label of wanted) {
        const v = vectors.get(label);
        if (v) out.set(label, v.vector);
      }
      return out;
    },

    async exists(ids) {
      open();
      return ids.map((id) => rows.has(id));
    },

    async textsOf(ids) {
      open();
      return ids.map((id) => rows.get(id)?.memory.text);
    },

    async *pagesByCreated(batchSize = 500) {
      open();
      const order = [...rows.values()].sort((a, b) => a.memory.createdAt - b.memory.createdAt || byId(a.memory.id, b.memory.id)).map((r) => r.memory.id);
      for (let i = 0; i < order.length; i += batchSize) {
        const page = order
          .slice(i, i + batchSize)
          .map((id) => rows.get(id))
          .filter((r): r is Row => r !== undefined)
          .map((r) => ({ memory: copy(r.memory), vector: vectors.get(r.label)?.vector }));
        if (page.length) yield page;
      }
    },

    async importBatch(importId, writes, ctx) {
      open();
      requireLease(importId);
      refuseHeld(writes.map((w) => w.memory.id), importId);
      let log = undoLogs.get(importId);
      if (!log) undoLogs.set(importId, (log = new Map()));
      const existing = writes.map((w) => rows.get(w.memory.id));
      const fresh = writes.map((w) => rowFor(w.memory, 0));
      const removed: Row[] = [];
      const seen = new Map<string, Row | undefined>();
      let docs = 0;
      let length = 0;
      writes.forEach((w, i) => {
        const id = w.memory.id;
        const current = seen.has(id) ? seen.get(id) : existing[i];
        if (current) {
          removed.push(current);
          docs -= 1;
          length -= current.termLength;
        }
        // The first change to an id in this import keeps what it replaced, for rollback.
        if (!log.has(id) && !seen.has(id)) {
          const vector = current ? vectors.get(current.label)?.vector : undefined;
          log.set(id, current ? { kind: 'overwritten', row: current, ...(vector ? { vector } : {}) } : { kind: 'inserted' });
        }
        seen.set(id, fresh[i]);
        docs += 1;
        length += fresh[i]!.termLength;
      });
      const { generation, firstLabel } = bump(fresh.length, { docs, length });
      fresh.forEach((row, i) => (row.label = firstLabel + i));
      for (const row of removed) if (rows.get(row.memory.id) === row) removeRow(row, generation);
      for (const row of removed) tombstones.set(row.label, generation);
      // Later rows with the same id replace earlier ones (applied in order).
      const last = new Map(fresh.map((r) => [r.memory.id, r]));
      const added: { label: number; vector: Float32Array }[] = [];
      append(ctx, writes.map((w, i) => ({ id: w.memory.id, before: existing[i]?.memory ?? null, after: w.memory })));
      fresh.forEach((row, i) => {
        if (last.get(row.memory.id) !== row) {
          tombstones.set(row.label, generation);
          return;
        }
        putRow(row);
        const vector = roundToHalf(writes[i]!.vector);
        vectors.set(row.label, { id: row.memory.id, vector, gen: generation });
        added.push({ label: row.label, vector });
      });
      return { added, removedLabels: removed.map((r) => r.label), generation };
    },

    async rollbackImport(importId) {
      open();
      // The import's journal entries share its id as their group: a rolled-back import never happened.
      for (let i = journal.length - 1; i >= 0; i--) if (journal[i]!.group === importId) journal.splice(i, 1);
      const log = undoLogs.get(importId) ?? new Map<string, UndoRecord>();
      const removed = [...log.keys()].map((id) => rows.get(id)).filter((r): r is Row => r !== undefined);
      const restored = [...log.values()].filter((u) => u.kind === 'overwritten' && u.row);
      const length = restored.reduce((s, u) => s + u.row!.termLength, 0) - removed.reduce((s, r) => s + r.termLength, 0);
      const { generation, firstLabel } = bump(restored.length, { docs: restored.length - removed.length, length });
      for (const row of removed) removeRow(row, generation);
      const added: { label: number; vector: Float32Array }[] = [];
      restored.forEach((u, i) => {
        const row = { ...u.row!, label: firstLabel + i };
        putRow(row);
        if (u.vector) {
          vectors.set(row.label, { id: row.memory.id, vector: u.vector, gen: generation });
          added.push({ label: row.label, vector: u.vector });
        }
      });
      undoLogs.delete(importId);
      settings.delete(`${LEASE}${importId}`);
      return { added, removedLabels: removed.map((r) => r.label), generation };
    },

    async finishImport(importId) {
      open();
      requireLease(importId);
      undoLogs.delete(importId);
      settings.delete(`${LEASE}${importId}`);
    },

    async beginImport(lease) {
      open();
      settings.set(`${LEASE}${lease.importId}`, copy(lease));
    },

    async renewImport(importId, heartbeatAt) {
      open();
      const lease = settings.get(`${LEASE}${importId}`) as ImportLease | undefined;
      if (!lease) return false;
      settings.set(`${LEASE}${importId}`, { ...lease, heartbeatAt: Math.max(lease.heartbeatAt, heartbeatAt) });
      return true;
    },

    async pendingImports() {
      open();
      const ids = new Set([...undoLogs.keys()].filter((id) => undoLogs.get(id)!.size > 0).sort(byId));
      for (const id of leasedImports()) ids.add(id);
      return [...ids].map((importId) => ({ importId, lease: copy((settings.get(`${LEASE}${importId}`) as ImportLease | undefined) ?? null) }));
    },

    async getMany(ids) {
      open();
      const out = new Map<string, Memory>();
      for (const id of ids) {
        const row = rows.get(id);
        if (row) out.set(id, copy(row.memory));
      }
      return out;
    },

    async labelsOf(ids) {
      open();
      return ids.map((id) => rows.get(id)?.label);
    },

    async incoming(id) {
      open();
      const out: { from: string; rel: string }[] = [];
      for (const { memory } of liveRows()) for (const link of memory.links) if (link.to === id) out.push({ from: memory.id, rel: link.rel });
      return out;
    },

    async pinMoved(id) {
      open();
      return rows.get(id)?.pinMoved === true;
    },

    async applyGraphChanges(changes: GraphChanges, ctx) {
      open();
      const puts = changes.put ?? [];
      refuseHeld([...puts.map((m) => m.id), ...(changes.forget ?? [])]);
      const current = puts.map((m) => rows.get(m.id));
      const missing = puts.find((_, i) => !current[i]);
      if (missing) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(missing.id)}`, { id: missing.id });
      const changed = puts.find((m, i) => current[i]!.memory.text !== m.text);
      if (changed) throw new MemoryError('INVALID_ARGUMENT', 'Graph changes cannot change text', { id: changed.id });
      puts.forEach((memory, i) => {
        const row = current[i]!;
        append(ctx, [{ id: memory.id, before: row.memory, after: memory }]);
        putRow(rowFor(memory, row.label, changes.pinMoved?.[memory.id] ?? row.pinMoved));
      });
      let removedLabels: number[] = [];
      let generation = currentGeneration();
      const forgotten = [...new Set(changes.forget ?? [])].map((id) => rows.get(id)).filter((r): r is Row => r !== undefined);
      if (forgotten.length) {
        append(ctx, forgotten.map((r) => ({ id: r.memory.id, before: r.memory, after: null, op: 'forget' })));
        generation = bump(0, { docs: -forgotten.length, length: -forgotten.reduce((s, r) => s + r.termLength, 0) }).generation;
        removedLabels = forgotten.map((r) => r.label);
        for (const row of forgotten) removeRow(row, generation);
      }
      for (const c of changes.conflicts ?? []) conflicts.set(c.id, copy(c));
      return { added: [], removedLabels, generation };
    },

    async listConflicts(status) {
      open();
      return [...conflicts.values()].filter((c) => !status || c.status === status).sort((a, b) => a.createdAt - b.createdAt).map(copy);
    },

    async getConflict(id) {
      open();
      const c = conflicts.get(id);
      return c && copy(c);
    },

    async journalRead(query) {
      open();
      let chosen: JournalEntry[];
      if (query.seq !== undefined) chosen = journal.filter((e) => e.seq === query.seq);
      else if (query.id !== undefined) chosen = journal.filter((e) => e.id === query.id);
      else if (query.group !== undefined) chosen = journal.filter((e) => e.group === query.group);
      else if (query.untilTs !== undefined) chosen = journal.filter((e) => e.ts <= query.untilTs!);
      else if (query.afterTs !== undefined) chosen = journal.filter((e) => e.ts > query.afterTs!);
      else if (query.newest !== undefined) chosen = query.newest > 0 ? journal.slice(-query.newest) : [];
      else chosen = journal;
      return chosen.map(copy);
    },

    async journalAfter(afterSeq, limit) {
      open();
      return journal.filter((e) => e.seq! > afterSeq).slice(0, Math.max(0, limit)).map(copy);
    },

    async journalKeys(query) {
      open();
      if ('group' in query) return journal.filter((e) => e.group === query.group).map((e) => e.seq!).reverse();
      const below = query.belowSeq;
      return journal
        .filter((e) => below === undefined || e.seq! < below)
        .map((e) => e.seq!)
        .reverse()
        .slice(0, query.limit);
    },

    async journalAppend(ctx, entries) {
      open();
      append(ctx, entries);
    },

    async journalCompact(query, ctx) {
      open();
      const previous = (settings.get(HORIZON) as JournalHorizon | undefined) ?? null;
      // The cut: below the oldest of the newest `keepLast` entries (compactions' own entries not
      // counted), and below the oldest entry written at or after `olderThanTs` (seq order).
      let cut = Number.POSITIVE_INFINITY;
      if (query.keepLast > 0) {
        const counted = journal.filter((e) => e.op !== 'compact');
        if (counted.length < query.keepLast) return { removed: 0, horizon: copy(previous) };
        cut = counted[counted.length - query.keepLast]!.seq!;
      }
      for (const e of journal) if (e.ts >= query.olderThanTs) cut = Math.min(cut, e.seq!);
      const old = journal.filter((e) => e.seq! < cut);
      // A call whose entries straddle the cut stays whole, so undoing it still works.
      const straddling = new Set(journal.filter((e) => e.seq! >= cut).map((e) => e.group));
      const dropped = old.filter((e) => !straddling.has(e.group));
      if (dropped.length === 0) return { removed: 0, horizon: copy(previous) };
      const gone = new Set(dropped.map((e) => e.seq));
      for (let i = journal.length - 1; i >= 0; i--) if (gone.has(journal[i]!.seq)) journal.splice(i, 1);
      const horizon: JournalHorizon = {
        ts: dropped.reduce((max, e) => Math.max(max, e.ts), previous?.ts ?? Number.NEGATIVE_INFINITY),
        seq: dropped.reduce((max, e) => Math.max(max, e.seq! + 1), previous?.seq ?? 0),
        compactedAt: ctx.ts,
      };
      settings.set(HORIZON, horizon);
      append({ ...ctx, meta: { ...ctx.meta, removed: dropped.length, horizonTs: horizon.ts } }, [{ id: '*', before: null, after: null }]);
      return { removed: dropped.length, horizon: copy(horizon) };
    },

    async journalHorizon() {
      open();
      return copy((settings.get(HORIZON) as JournalHorizon | undefined) ?? null);
    },

    async plantCanary(candidate) {
      open();
      const existing = settings.get(CANARY);
      if (typeof existing === 'string') return existing;
      settings.set(CANARY, candidate);
      return candidate;
    },

    async durabilitySnapshot() {
      open();
      const canary = settings.get(CANARY);
      return {
        canary: typeof canary === 'string' ? canary : null,
        count: rows.size,
        booked: meta?.lexicalDocs ?? 0,
        newestSeq: journal.length ? journal[journal.length - 1]!.seq! : 0,
        importPending: [...undoLogs.values()].some((log) => log.size > 0),
      };
    },

    async moveToTrash(ids, ctx): Promise<IndexDelta> {
      open();
      refuseHeld(ids);
      const chosen = [...new Set(ids)].map((id) => rows.get(id)).filter((r): r is Row => r !== undefined);
      if (chosen.length === 0) return { added: [], removedLabels: [], generation: currentGeneration() };
      for (const r of chosen) {
        const vector = vectors.get(r.label)?.vector;
        trash.push({ seq: nextTrashSeq++, id: r.memory.id, deletedAt: ctx.ts, actor: ctx.actor, memory: copy(r.memory), ...(vector ? { vector } : {}) });
      }
      append(ctx, chosen.map((r) => ({ id: r.memory.id, before: r.memory, after: null })));
      const { generation } = bump(0, { docs: -chosen.length, length: -chosen.reduce((s, r) => s + r.termLength, 0) });
      for (const row of chosen) removeRow(row, generation);
      return { added: [], removedLabels: chosen.map((r) => r.label), generation };
    },

    async listTrash() {
      open();
      return trash.map((t) => ({ id: t.id, deletedAt: t.deletedAt, actor: t.actor, memory: copy(t.memory) }));
    },

    async restoreFromTrash(id, ctx) {
      open();
      refuseHeld([id]);
      const entry = trash.filter((t) => t.id === id).at(-1);
      if (!entry || rows.has(id)) return null;
      if (!entry.vector) return { needsVector: copy(entry.memory) };
      const row = rowFor(entry.memory, 0);
      const { generation, firstLabel } = bump(1, { docs: 1, length: row.termLength });
      row.label = firstLabel;
      putRow(row);
      vectors.set(firstLabel, { id, vector: entry.vector, gen: generation });
      trash = trash.filter((t) => t.id !== id);
      append(ctx, [{ id, before: null, after: entry.memory }]);
      return { memory: copy(entry.memory), delta: { added: [{ label: firstLabel, vector: entry.vector }], removedLabels: [], generation } };
    },

    async trashVectors(ids) {
      open();
      const wanted = new Set(ids);
      const out = new Map<string, { text: string; vector: Float32Array }>();
      // Oldest first, so the newest entry of an id is the one kept.
      for (const t of trash) if (wanted.has(t.id) && t.vector) out.set(t.id, { text: t.memory.text, vector: t.vector });
      return out;
    },

    async purgeTrash(query) {
      open();
      const before = trash.length;
      if (query.id !== undefined) trash = trash.filter((t) => t.id !== query.id);
      else if (query.ids !== undefined) {
        const ids = new Set(query.ids);
        trash = trash.filter((t) => !ids.has(t.id));
      } else if (query.before !== undefined) trash = trash.filter((t) => t.deletedAt >= query.before!);
      else trash = [];
      return before - trash.length;
    },

    async getSetting(key) {
      open();
      return copy(settings.get(`setting:${key}`));
    },

    async putSetting(key, value) {
      open();
      settings.set(`setting:${key}`, copy(value));
    },

    async allMemories() {
      open();
      return liveRows().map((r) => copy(r.memory));
    },

    close() {
      closed = true;
    },
  };
  return storage;
}

/**
 * A storage factory for `createMemory({ storage })` that keeps each named store in this process's
 * memory: closing a store and opening the same name again finds its memories, as a database
 * would; another factory (or another process) does not see them.
 */
export function memoryStorages(): (name: string) => MemoryStorage {
  const stores = new Map<string, MemoryStorage>();
  return (name) => {
    let base = stores.get(name);
    if (!base) stores.set(name, (base = createMemoryStorage()));
    return handle(base);
  };
}

/** A handle on a shared in-memory storage: closing it closes this handle only. */
function handle(base: MemoryStorage): MemoryStorage {
  let closed = false;
  const guard = (): void => {
    if (closed) throw new MemoryError('STORAGE_FAILURE', 'This in-memory storage is closed', { operation: 'use' });
  };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) {
    if (key === 'close') continue;
    out[key] =
      key === 'pagesByCreated'
        ? async function* (batchSize?: number) {
            guard();
            yield* base.pagesByCreated(batchSize);
          }
        : async (...args: unknown[]) => {
            guard();
            return (value as (...a: unknown[]) => Promise<unknown>).apply(base, args);
          };
  }
  out['close'] = () => void (closed = true);
  return out as unknown as MemoryStorage;
}
