/**
 * `.ahkai` archives as store operations: the export is journaled (and a whole export recorded as
 * the last backup), the import waits for the store's own vectors. The work itself is in
 * `archive/store-ops.ts` (orchestration) over the pure planning of `archive/`.
 */
import {
  archiveInfo as readArchiveInfo,
  exportArchive as exportWholeArchive,
  importArchive as importIntoStore,
  type ArchiveInfo,
  type ArchiveLimits,
  type ArchiveSource,
  type ExportArchiveOptions,
  type ImportArchiveOptions,
  type ImportResult,
} from '../archive/store-ops.ts';
import { journalFor, requireOpen, requireVectors, type Using } from '../context.ts';
import { checkBoolean, checkObject } from '../domain/validate.ts';

export async function exportArchive(ctx: Using<'journal' | 'rows'>, options?: ExportArchiveOptions): Promise<Blob> {
  requireOpen(ctx);
  const { record: recordOption, ...rest } = checkObject<ExportArchiveOptions>(options, 'options');
  const record = recordOption === undefined ? true : checkBoolean(recordOption, 'record');
  const blob = await exportWholeArchive(ctx, rest);
  if (!record) return blob; // a read-only or untrusted connection's export leaves no trace
  await ctx.storage.journalAppend(journalFor(ctx, 'export', { bytes: blob.size }), [{ id: '*', before: null, after: null }]);
  // A whole export (no type, tag or date filter) is a backup: the registry keeps its time.
  if (rest.types === undefined && rest.tags === undefined && rest.since === undefined) {
    await ctx.durability.check({ exportedAt: ctx.clock.now() }).catch(() => undefined);
  }
  return blob;
}

export async function importArchive(ctx: Using<'imports' | 'rows'>, source: ArchiveSource, options?: ImportArchiveOptions): Promise<ImportResult> {
  requireVectors(ctx);
  return importIntoStore(ctx, source, options);
}

export async function archiveInfo(ctx: Using, source: ArchiveSource, options?: ArchiveLimits): Promise<ArchiveInfo> {
  requireOpen(ctx);
  return readArchiveInfo(source, options, ctx.clock.now());
}
