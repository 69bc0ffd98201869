/**
 * Every package entry exports the API's option and result types (checked by `tsc`, which
 * `npm test` runs: a type missing from an entry fails the typecheck), and they are one type,
 * not copies.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type * as Agents from '../src/agents/index.ts';
import type * as Browser from '../src/index.ts';
import type * as Local from '../src/local.ts';
import type { MemoryApi } from '../src/core/api.ts';

type Result<M extends keyof MemoryApi> = Awaited<ReturnType<MemoryApi[M]>>;

describe('public types', () => {
  it('every entry exports the result types of MemoryApi', () => {
    expectTypeOf<Browser.PackResult>().toEqualTypeOf<Result<'recallPack'>>();
    expectTypeOf<Local.PackResult>().toEqualTypeOf<Browser.PackResult>();
    expectTypeOf<Agents.PackResult>().toEqualTypeOf<Browser.PackResult>();
    expectTypeOf<Browser.Suggestion[]>().toEqualTypeOf<Result<'suggest'>>();
    expectTypeOf<Local.Suggestion>().toEqualTypeOf<Agents.Suggestion>();
    expectTypeOf<Browser.NeighborsResult>().toEqualTypeOf<Result<'neighbors'>>();
    expectTypeOf<Local.NeighborsResult>().toEqualTypeOf<Agents.NeighborsResult>();
    expectTypeOf<Browser.HealthReport>().toEqualTypeOf<Result<'health'>['statuses'][string]>();
    expectTypeOf<Local.HealthReport>().toEqualTypeOf<Agents.HealthReport>();
    expectTypeOf<Browser.EvalSummary>().toEqualTypeOf<Result<'evaluate'>>();
    expectTypeOf<Local.EvalSummary>().toEqualTypeOf<Agents.EvalSummary>();
    expectTypeOf<Browser.UndoResult>().toEqualTypeOf<Result<'undo'>>();
    expectTypeOf<Local.UndoResult>().toEqualTypeOf<Agents.UndoResult>();
    expectTypeOf<Browser.PendingConflict>().toEqualTypeOf<Result<'resolveConflict'>>();
    expectTypeOf<Local.PendingConflict>().toEqualTypeOf<Agents.PendingConflict>();
    expectTypeOf<Browser.ImportResult>().toEqualTypeOf<Result<'importArchive'>>();
    expectTypeOf<Local.ArchiveInfo>().toEqualTypeOf<Result<'archiveInfo'>>();
    expectTypeOf<Agents.CompactResult>().toEqualTypeOf<Result<'compactJournal'>>();
    expectTypeOf<Local.DurabilityReport>().toEqualTypeOf<Result<'durability'>>();
    expectTypeOf<Browser.MaintenanceStatus>().toEqualTypeOf<Result<'maintenanceStatus'>>();
    expectTypeOf<Browser.ReflectResult>().toEqualTypeOf<Result<'reflect'>>();
    expectTypeOf<Browser.PruneResult>().toEqualTypeOf<Result<'prune'>>();
    expectTypeOf<Local.RecallPackOptions>().toEqualTypeOf<NonNullable<Parameters<MemoryApi['recallPack']>[1]>>();
    expectTypeOf<Agents.ContextPackOptions>().toEqualTypeOf<NonNullable<Parameters<MemoryApi['contextPack']>[1]>>();
    expectTypeOf<Browser.MemoryApi>().toEqualTypeOf<MemoryApi>();
    expectTypeOf<Agents.MemoryApi>().toEqualTypeOf<MemoryApi>();
  });
});
