/**
 * Import of an `.ahkai` archive, in steps: read what the file holds (`archiveInfo`, nothing
 * written), let the person choose the conflict policy and whether to re-embed, import with
 * progress and Cancel, then show the summary with the row errors.
 */
import type { ArchiveInfo } from '../../index.ts';
import { problemOf, type Problem } from '../lib/errors.ts';
import { importBlocker, type ImportProgress } from '../lib/import-progress.ts';
import { ImportFlow } from './import-flow.svelte.ts';
import { sameModel } from '../lib/format.ts';
import { memory } from './memory.svelte.ts';

export type ImportPolicy = 'skip' | 'overwrite' | 'rename' | 'error';
export type { ImportStage } from './import-flow.svelte.ts';

export const POLICIES: { value: ImportPolicy; label: string; hint: string }[] = [
  { value: 'skip', label: 'Skip', hint: 'Keep what is here; ignore archive rows whose id already exists.' },
  { value: 'overwrite', label: 'Overwrite', hint: 'Replace memories that share an id with the archive’s version.' },
  { value: 'rename', label: 'Keep both', hint: 'Import colliding rows under new ids, beside the existing ones.' },
  { value: 'error', label: 'Stop on conflict', hint: 'Import nothing if any id already exists.' },
];

/** What the preview shows: `archiveInfo` without the raw header, plus the export time. */
export type ArchivePreview = Omit<ArchiveInfo, 'header'> & { exportedAt: number | null };

export interface ImportSummary {
  imported: number;
  skipped: number;
  overwritten: number;
  renamed: number;
  errors: { where: string; message: string }[];
  vectorsRegenerated: boolean;
}

export class ImporterState extends ImportFlow<ImportSummary> {
  info = $state<ArchivePreview | null>(null);
  policy = $state<ImportPolicy>('skip');
  regenerate = $state(true);

  /** The store's embedder, as the preview compares it with the archive's. */
  get storeModel(): string | null {
    return memory.stats?.embedder.id ?? memory.api?.embedder.id ?? null;
  }

  /** Vectors in the file that this store can use as they are. */
  get vectorsUsable(): boolean {
    const info = this.info;
    if (!info?.hasVectors) return false;
    const dim = memory.stats?.embedder.dim ?? memory.api?.embedder.dim;
    return (info.model === null || sameModel(info.model, this.storeModel)) && info.dim === dim;
  }

  /** Whether the re-embed choice matters (vectors from another model, or none at all). */
  get needsEmbedding(): boolean {
    return this.info !== null && !this.vectorsUsable;
  }

  /** Reads an archive's header and rows without writing anything. */
  async inspect(file: File | Blob, name = file instanceof File ? file.name : 'archive.ahkai'): Promise<void> {
    if (this.stage === 'importing') return;
    const token = ++this.token;
    this.file = file;
    this.fileName = name;
    this.fileSize = file.size;
    this.info = null;
    this.result = null;
    this.problem = null;
    this.progress = null;
    this.policy = 'skip';
    this.regenerate = true;
    this.stage = 'reading';
    const client = memory.api;
    if (!client) {
      this.fail({ title: 'No store is open', message: 'Open a store first, then import into it.' });
      return;
    }
    try {
      const info = await client.archiveInfo(file);
      if (token !== this.token) return;
      const exportedAt = info.header['exported_at'];
      const { header: _, ...facts } = info;
      this.info = { ...facts, exportedAt: typeof exportedAt === 'number' ? exportedAt : null };
      this.stage = 'preview';
    } catch (error) {
      if (token === this.token) this.fail(problemOf(error, 'This file cannot be imported'));
    }
  }

  /** A drop or pick that did not yield exactly one file. */
  reject(problem: Problem): void {
    if (this.stage === 'importing') return;
    this.token++;
    this.file = null;
    this.info = null;
    this.fileName = '';
    this.fail(problem);
  }

  /** Why the import cannot start with the current choices (it would fail), or null. */
  get blocker(): string | null {
    const info = this.info;
    if (!info) return null;
    return importBlocker({ info, policy: this.policy, needsEmbedding: this.needsEmbedding, regenerate: this.regenerate });
  }

  async start(): Promise<void> {
    const client = memory.api;
    const file = this.file;
    if (!client || !file || this.stage !== 'preview' || this.blocker !== null) return;
    const first: ImportProgress = { kind: 'import', phase: 'read', rowsRead: 0, rowsWritten: 0, bytes: 0, totalBytes: file.size, writesTotal: null };
    await this.run(
      (signal, onProgress) =>
        client.importArchive(file, {
          onConflict: this.policy,
          regenerateVectors: this.needsEmbedding && this.regenerate,
          // Embedding is the slow part: smaller transactions give a livelier progress bar and
          // let Cancel land sooner (the signal is checked between batches).
          batchSize: this.needsEmbedding ? 100 : 500,
          signal,
          onProgress,
        }),
      this.info?.rows ?? 0,
      'rows',
      first,
    );
  }

  /** Back to the preview after a failure that a different choice can fix. */
  back(): void {
    if (this.info && this.file) {
      this.problem = null;
      this.stage = 'preview';
    }
  }

  close(): void {
    if (this.stage === 'importing') return;
    this.token++;
    this.stage = 'idle';
    this.file = null;
    this.info = null;
    this.result = null;
    this.problem = null;
    this.progress = null;
  }
}

export const importer = new ImporterState();
