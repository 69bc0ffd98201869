/**
 * Export: the memories matching the search filters (type, tag, since, superseded) as an
 * `.ahkai` archive, downloaded as `<store>-<YYYY-MM-DD>.ahkai`.
 */
import type { ProgressEvent } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { bytes, dateInputToSeconds } from '../lib/format.ts';
import { archiveFileName, downloadBlob } from '../lib/download.ts';
import { memory } from './memory.svelte.ts';
import type { SearchFilters } from './search.svelte.ts';
import { toasts } from './toasts.svelte.ts';

export class ExporterState {
  running = $state(false);
  rowsWritten = $state(0);
  error = $state<string | null>(null);
  private controller: AbortController | null = null;

  fileName(): string {
    return archiveFileName(memory.storeName);
  }

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
      const blob = await client.exportArchive({
        ...(filters.type ? { types: [filters.type] } : {}),
        ...(tag ? { tags: [tag] } : {}),
        ...(since !== undefined ? { since } : {}),
        includeSuperseded: filters.includeSuperseded,
        signal: controller.signal,
        onProgress: (e: ProgressEvent) => {
          if (e.kind === 'export') this.rowsWritten = e.rowsWritten;
        },
      });
      const name = this.fileName();
      downloadBlob(blob, name);
      toasts.push(`Downloaded ${name} (${bytes(blob.size)}).`);
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
