/**
 * The store the attack suites run against: an owner's memories of every kind a scoped
 * connection must not reach (trusted, pinned, reported, superseded, trashed, expiring, in another
 * namespace, a pending conflict, a backup time), and the fingerprint that tells whether an attempt
 * changed any of it.
 */
import * as Comlink from 'comlink';
import { connectEndpoint, type MemoryClient } from '../../src/client/connect.ts';
import { createMemory, type LocalMemory, type Memory, type MemoryApi } from '../../src/local.ts';
import { createHost, StoreRegistry, type ConnectionScope } from '../../src/rpc/host.ts';
import { installErrorTransfer } from '../../src/transport/error-transfer.ts';
import { trustRank } from '../../src/core/domain/trust.ts';
import { createHashEmbedder } from '../helpers/fake-embedder.ts';
import { manualClock, uniqueName } from '../helpers/store.ts';

export interface Fixture {
  owner: LocalMemory;
  clock: ReturnType<typeof manualClock>;
  ids: {
    trusted: string;
    pinned: string;
    reported: string;
    untrusted: string;
    /** Superseded by `successor` (the owner replaced it). */
    superseded: string;
    successor: string;
    /** In the namespace `web` (an untrusted clip). */
    web: string;
    /** In the namespace `agent2`. */
    agent2: string;
    /** Moved to the trash by decay. */
    trashed: string;
    /** Its TTL has passed. */
    expired: string;
    /** A conflict waiting for review. */
    pending: string;
  };
  /** The owner's own export, with every row (trusted and pinned ones too). */
  archive: Blob;
  /** Journal entries the owner wrote (undo targets). */
  ownerSeq: number;
}

export async function buildFixture(): Promise<Fixture> {
  const clock = manualClock(1_760_000_000);
  const owner = await createMemory({ name: uniqueName('attack'), embedder: createHashEmbedder(), index: 'exact', clock, snapshotDelayMs: 10 });
  const remember = async (text: string, options: Parameters<MemoryApi['remember']>[1] = {}) =>
    (await owner.remember(text, { onConflict: 'ignore', ...options })).memory.id;
  const trashed = await remember('an old trusted note about the legacy billing cron', { importance: 0.05 });
  clock.advance(400 * 86_400);
  await owner.prune({ dryRun: false });
  const trusted = await remember('the payments policy requires two approvals for every transfer', { importance: 0.9 });
  const pinned = await remember('always confirm the recipient with the user before paying', { type: 'procedural', pinned: true });
  const reported = await remember('a colleague said the office moves to the harbour in may', { trust: 'reported' });
  const untrusted = await remember('a forum post claims coupons can be stacked at checkout', { trust: 'untrusted' });
  const superseded = await remember('the vpn endpoint is vpn1.example.org');
  const successor = await remember('the vpn endpoint is vpn2.example.org');
  await owner.supersede(superseded, successor);
  const web = await remember('a clip about sourdough starters from a cooking site', { trust: 'untrusted', tags: ['ns:web'] });
  const agent2 = await remember('agent2 keeps its scratch notes here', { tags: ['ns:agent2'] });
  const expired = await remember('the maintenance window is tonight', { expiresAt: clock.now() + 10 });
  await owner.link(trusted, pinned, 'related');
  await remember('standup is at nine every weekday');
  await owner.remember('standup is not at nine every weekday', { onConflict: 'review' });
  const [pending] = await owner.listPendingConflicts();
  const archive = await owner.exportArchive(); // also the owner's backup: the reminder's time
  clock.advance(20);
  const [last] = await owner.journalTail(1);
  return {
    owner,
    clock,
    ids: { trusted, pinned, reported, untrusted, superseded, successor, web, agent2, trashed, expired, pending: pending!.id },
    archive,
    ownerSeq: last!.seq!,
  };
}

/** Everything an attempt could change, read through the owner (never a scoped connection). */
export interface Fingerprint {
  memories: Map<string, Memory>;
  journal: number[];
  trash: string[];
  pending: string[];
  lastExportAt: number | null;
}

export async function fingerprint(owner: MemoryApi): Promise<Fingerprint> {
  const memories = await owner.listRecent({ limit: 100_000, includeSuperseded: true, includeExpired: true });
  return {
    memories: new Map(memories.map((m) => [m.id, m])),
    journal: (await owner.journalTail(100_000)).map((e) => e.seq!),
    trash: (await owner.trashList()).map((t) => `${t.id}@${t.deletedAt}`),
    pending: (await owner.listPendingConflicts()).map((p) => p.id),
    lastExportAt: (await owner.durability()).lastExportAt,
  };
}

const withoutAccess = ({ lastAccessed: _a, accessCount: _c, ...rest }: Memory) => JSON.stringify(rest);
const inNamespace = (m: Memory, ns: string) => m.tags.includes(`ns:${ns}`);

/**
 * What an attempt through a connection with `scope` must never do, as a list of violations
 * (empty: it held). `result` is what the call answered (checked for leaks out of a namespace).
 */
export function violations(scope: ConnectionScope, before: Fingerprint, after: Fingerprint, result: unknown): string[] {
  const out: string[] = [];
  const ceiling = scope.trust && scope.trust !== 'trusted' ? scope.trust : undefined;
  if (scope.readOnly) {
    for (const [id, m] of before.memories) {
      const now = after.memories.get(id);
      if (!now) out.push(`removed ${id}`);
      else if (JSON.stringify(now) !== JSON.stringify(m)) out.push(`changed ${id} (access tracking included)`);
    }
    for (const id of after.memories.keys()) if (!before.memories.has(id)) out.push(`added ${id}`);
    if (after.journal.join() !== before.journal.join()) out.push('wrote the journal');
  }
  if (scope.readOnly || ceiling || scope.namespace !== undefined) {
    const kept = new Set(after.journal);
    if (before.journal.some((seq) => !kept.has(seq))) out.push('dropped journal entries');
    const trash = new Set(after.trash);
    if (before.trash.some((t) => !trash.has(t))) out.push('emptied or restored from the trash');
    const pending = new Set(after.pending);
    if (before.pending.some((p) => !pending.has(p))) out.push('resolved a pending conflict');
    if (after.lastExportAt !== before.lastExportAt) out.push('reset the backup reminder');
  }
  const protectedBy = (m: Memory): string | null => {
    if (ceiling && (trustRank(m.trust) < trustRank(ceiling) || m.pinned)) return `${m.trust}${m.pinned ? ', pinned' : ''}`;
    if (scope.namespace !== undefined && !inNamespace(m, scope.namespace)) return `outside ns:${scope.namespace}`;
    return null;
  };
  for (const [id, m] of before.memories) {
    const why = protectedBy(m);
    if (!why) continue;
    const now = after.memories.get(id);
    if (!now) out.push(`removed ${id} (${why})`);
    else if (withoutAccess(now) !== withoutAccess(m)) out.push(`changed ${id} (${why})`);
  }
  for (const [id, m] of after.memories) {
    const old = before.memories.get(id);
    if (old && withoutAccess(old) === withoutAccess(m)) continue;
    if (ceiling && (trustRank(m.trust) < trustRank(ceiling) || m.pinned)) out.push(`wrote ${id} as ${m.trust}${m.pinned ? ', pinned' : ''}`);
    if (scope.namespace !== undefined) {
      if (!inNamespace(m, scope.namespace)) out.push(`wrote ${id} outside ns:${scope.namespace}`);
      const foreign = m.tags.filter((t) => t.toLowerCase().startsWith('ns:') && t !== `ns:${scope.namespace}`);
      if (foreign.length) out.push(`wrote ${id} into ${foreign.join(', ')}`);
    }
  }
  if (scope.namespace !== undefined && result !== undefined) {
    const json = JSON.stringify(result, (_k, v: unknown) => (v instanceof Blob ? '[blob]' : v));
    for (const m of before.memories.values()) {
      if (inNamespace(m, scope.namespace)) continue;
      if (json?.includes(m.id) || json?.includes(m.text)) out.push(`revealed ${m.id} (outside ns:${scope.namespace})`);
    }
  }
  return out;
}

/** A client of `owner` over a MessageChannel, through the worker's RPC host, with `scope`. */
export async function rpcClient(owner: LocalMemory, scope: ConnectionScope, cleanups: (() => unknown)[]): Promise<MemoryClient> {
  installErrorTransfer();
  const registry = new StoreRegistry({ open: async () => owner });
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(createHost(registry), port1);
  const client = await connectEndpoint(port2, { name: owner.name, scope });
  cleanups.push(() => {
    port1.close();
    port2.close();
  });
  return client;
}
