/**
 * Durability: noticing that the browser deleted or cleared a store. Two witnesses that live in
 * different databases: a canary (a random id) in the store's own database, and a record in the
 * registry of stores (a database of its own) with when the store was last seen, how many
 * memories it held and the newest journal seq then. The check reports a loss when
 *
 * - the canary is gone or replaced while the registry remembers the store ('canary': the
 *   database was deleted, or deleted and created again);
 * - the database holds fewer memories than its own metadata row books ('rows': rows were cleared
 *   behind the store's back; every write keeps the books in its transaction);
 * - the journal ends before the newest entry seen last time ('rollback': an older copy of the
 *   database came back).
 *
 * A loss stays reported until it is acknowledged.
 *
 * Limits: both witnesses live in the origin's storage. Eviction under storage pressure and
 * "clear site data" remove every database of the origin at once, the registry included, and the
 * store then looks new; only persistent storage and exports kept outside the browser protect
 * against that.
 */
import type { Clock, DurabilityRegistry, DurabilitySnapshot, LossRecord, MemoryStorage, StoreRecord } from '../ports.ts';

export type CanaryState = 'ok' | 'missing' | 'new';

export interface DurabilityReport {
  /** Whether the browser keeps this origin's storage under pressure (null where it cannot say). */
  persisted: boolean | null;
  /** 'ok': the store's canary is the one the registry knows; 'missing': it is gone or replaced; 'new': first seen now. */
  canary: CanaryState;
  /** Memories now. */
  count: number;
  /**
   * When the store was last seen intact before it was opened this time (Unix seconds; null for a
   * new store), and how many memories it held then; with a loss, the last sighting before it.
   */
  lastSeen: number | null;
  lastCount: number | null;
  /** True while a loss is reported and not acknowledged. */
  suspectedLoss: boolean;
  loss: LossRecord | null;
  /** When the store was last exported whole (Unix seconds); kept in the registry, so it survives the store's loss. */
  lastExportAt: number | null;
  /** False when the registry database could not be used (the canary alone then says 'ok' or 'new'). */
  registry: boolean;
  checkedAt: number;
}

export interface DurabilityDeps {
  name: string;
  storage: MemoryStorage;
  registry: DurabilityRegistry | null;
  clock: Clock;
  newId(): string;
  persisted(): Promise<boolean | null>;
}

export interface Assessment {
  canary: CanaryState;
  /** A loss found by this check. */
  found: LossRecord | null;
}

/**
 * Compares one snapshot of the store with the registry's record. `planted` is the canary the
 * database holds after planting (equal to `snapshot.canary` when one was there already).
 */
export function assess(snapshot: DurabilitySnapshot, planted: string, record: StoreRecord | undefined, now: number): Assessment {
  const loss = (reason: LossRecord['reason'], expected: number): LossRecord => ({
    detectedAt: now,
    reason,
    lastSeen: record?.lastSeen ?? now,
    lastCount: record?.lastCount ?? expected,
    expected,
    found: snapshot.count,
  });
  // A canary another worker planted a moment ago is the one the registry holds: not a loss.
  const held = snapshot.canary ?? planted;
  if (record && held !== record.canary) return { canary: 'missing', found: loss('canary', record.lastCount) };
  const canary: CanaryState = record ? 'ok' : snapshot.canary === null ? 'new' : 'ok';
  if (snapshot.count < snapshot.booked - (record?.acceptedGap ?? 0)) return { canary, found: loss('rows', snapshot.booked) };
  if (record && snapshot.newestSeq < record.lastSeq) return { canary, found: loss('rollback', record.lastCount) };
  return { canary, found: null };
}

/** The registry record after a check. */
export function nextRecord(input: {
  name: string;
  previous: StoreRecord | undefined;
  snapshot: DurabilitySnapshot;
  planted: string;
  found: LossRecord | null;
  now: number;
  acknowledge: boolean;
  exportedAt: number | undefined;
}): StoreRecord {
  const { previous, snapshot, planted, found, now, acknowledge } = input;
  const same = previous !== undefined && previous.canary === planted;
  // Counts taken while an import is half written could still be rolled back: keep the settled ones.
  const keepCounts = same && snapshot.importPending;
  return {
    name: input.name,
    canary: planted,
    firstSeen: same ? previous.firstSeen : now,
    lastSeen: now,
    lastCount: keepCounts ? previous.lastCount : snapshot.count,
    lastSeq: keepCounts ? previous.lastSeq : snapshot.newestSeq,
    lastExportAt: input.exportedAt ?? previous?.lastExportAt ?? null,
    // The first report of a loss stands until acknowledged; acknowledging accepts the rows missing now.
    loss: acknowledge ? null : (previous?.loss ?? found),
    acceptedGap: acknowledge ? Math.max(0, snapshot.booked - snapshot.count) : same ? previous.acceptedGap : 0,
  };
}

/**
 * Checks one store, one check at a time. The first check (at open) decides whether the store is
 * new and remembers the registry's record as it was, so `lastSeen` keeps meaning "before this
 * open". After writes that change the number of memories the registry is refreshed on a quiet
 * period (and at close), so the count it remembers stays close to the truth.
 */
export class DurabilityMonitor {
  private queue: Promise<unknown> = Promise.resolve();
  private openState: CanaryState | null = null;
  private before: StoreRecord | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dirty = false;

  constructor(
    private readonly deps: DurabilityDeps,
    private readonly refreshDelayMs = 5000,
  ) {}

  /** Schedules a registry refresh after a write (debounced), or after `delayMs`. */
  changed(delayMs = this.refreshDelayMs): void {
    this.dirty = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.dirty) void this.check().catch(() => undefined);
    }, delayMs);
  }

  check(options: { acknowledge?: boolean; exportedAt?: number } = {}): Promise<DurabilityReport> {
    const run = this.queue.then(() => this.run(options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Before the store closes: drops the timer, refreshes the registry once more if writes happened, waits. */
  async settle(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty) await this.check().catch(() => undefined);
    await this.queue;
  }

  private async run(options: { acknowledge?: boolean; exportedAt?: number }): Promise<DurabilityReport> {
    const { storage, registry, name, clock } = this.deps;
    let registryOk = registry !== null;
    let record: StoreRecord | undefined;
    let stored: StoreRecord | null = null;
    let snapshot!: DurabilitySnapshot;
    let assessment!: Assessment;
    let now = clock.now();
    // The record is read before the snapshot, so a snapshot is never older than the record it is
    // compared with; when another worker rewrote the record meanwhile, read both again.
    for (let attempt = 0; attempt < 5; attempt++) {
      record = undefined;
      if (registry && registryOk) {
        try {
          record = await registry.get(name);
        } catch {
          registryOk = false;
        }
      }
      snapshot = await storage.durabilitySnapshot();
      const planted = snapshot.canary ?? (await storage.plantCanary(this.deps.newId()));
      now = clock.now();
      assessment = assess(snapshot, planted, record, now);
      if (!registry || !registryOk) break;
      let raced = false;
      try {
        stored = await registry.update(name, (previous) => {
          if (JSON.stringify(previous) !== JSON.stringify(record)) {
            raced = true;
            return previous ?? null;
          }
          return nextRecord({ name, previous, snapshot, planted, found: assessment.found, now, acknowledge: options.acknowledge === true, exportedAt: options.exportedAt });
        });
      } catch {
        registryOk = false;
      }
      if (!raced) break;
    }
    if (this.openState === null) {
      this.openState = assessment.canary;
      this.before = record;
    }
    this.dirty = false;
    const loss = stored?.loss ?? (registryOk ? null : assessment.found);
    const canary: CanaryState = assessment.canary !== 'ok' ? assessment.canary : loss?.reason === 'canary' ? 'missing' : this.openState === 'new' ? 'new' : 'ok';
    return {
      persisted: await this.deps.persisted().catch(() => null),
      canary,
      count: snapshot.count,
      lastSeen: loss ? loss.lastSeen : (this.before?.lastSeen ?? null),
      lastCount: loss ? loss.lastCount : (this.before?.lastCount ?? null),
      suspectedLoss: loss !== null,
      loss,
      lastExportAt: stored?.lastExportAt ?? record?.lastExportAt ?? options.exportedAt ?? null,
      registry: registryOk,
      checkedAt: now,
    };
  }
}
