/**
 * Export as an `.ahkai` archive, downloaded as `<store>-<YYYY-MM-DD>.ahkai`: by default the whole
 * store for a backup (superseded versions included), or what the search filters select.
 */
import type { ProgressEvent } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { bytes, dateInputToSeconds } from '../lib/format.ts';
import { archiveFileName, downloadBlob } from '../lib/download.ts';
import { memory } from './memory.svelte.ts';
import type { SearchFilters } from './search.svelte.ts';
import { toasts } from './toasts.svelte.ts';

/** What an export holds: everything (a backup), or what the search filters select. */
export type ExportScope = 'all' | 'filters';

export class ExporterState {
  /** The export dialog is open. */
  open = $state(false);
  scope = $state<ExportScope>('all');
  includeVectors = $state(true);
  running = $state(false);
  rowsWritten = $state(0);
  error = $state<string | null>(null);
  private controller: AbortController | null = null;

  fileName(): string {
    return archiveFileName(memory.storeName);
  }

  /** Opens the dialog, set for a backup of everything. */
  show(): void {
    this.scope = 'all';
    this.includeVectors = true;
    this.error = null;
    this.open = true;
  }

  close(): void {
    if (this.running) return;
    this.open = false;
  }

  /**
   * Exports and downloads. A backup ('all') holds every memory — superseded versions included,
   * whatever the search filters say — so that importing it restores the store's history too;
   * 'filters' holds what the search filters select (superseded ones only when they ask for them).
   */
  async run(filters: SearchFilters): Promise<void> {
    const client = memory.api;
    if (!client || this.running) return;
    const since = dateInputToSeconds(filters.since);
    const tag = filters.tag.trim().replace(/^#/, '');
    const controller = new AbortController();
    this.controller = controller;
    this.running = true;
    this.rowsWritten = 0;
    this.error = null;
    try {
      const selection =
        this.scope === 'all'
          ? { includeSuperseded: true }
          : {
              ...(filters.type ? { types: [filters.type] } : {}),
              ...(tag ? { tags: [tag] } : {}),
              ...(since !== undefined ? { since } : {}),
              includeSuperseded: filters.includeSuperseded,
            };
      const blob = await client.exportArchive({
        ...selection,
        includeVectors: this.includeVectors,
        signal: controller.signal,
        onProgress: (e: ProgressEvent) => {
          if (e.kind === 'export') this.rowsWritten = e.rowsWritten;
        },
      });
      const name = this.fileName();
      downloadBlob(blob, name);
      this.open = false;
      toasts.push(`Downloaded ${name}: ${this.rowsWritten.toLocaleString()} ${this.rowsWritten === 1 ? 'memory' : 'memories'}, ${bytes(blob.size)}.`);
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.running = false;
      this.controller = null;
    }
  }

  cancel(): void {
    this.controller?.abort();
  }
}

export const exporter = new ExporterState();
