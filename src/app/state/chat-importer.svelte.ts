/**
 * Import of a chat history (a ChatGPT or Claude data export, or JSONL), in steps: a dry run reads
 * and counts what the file holds (nothing written), the person sees the conversations, messages,
 * speakers and dates, then imports with progress and Cancel, and sees the summary. Every message
 * becomes an episodic memory; one already imported is skipped; the import is one Undo in Activity.
 */
import type { ImportChatsResult } from '../../index.ts';
import { problemOf, type Problem } from '../lib/errors.ts';
import { importEnding, importFraction, type ImportProgress } from '../lib/import-progress.ts';
import { memory } from './memory.svelte.ts';

export type ChatImportStage = 'idle' | 'reading' | 'preview' | 'importing' | 'done' | 'failed' | 'cancelled';

/** A file the chat import reads rather than the archive import: JSON, JSONL or a zip. */
export const isChatFile = (name: string): boolean => /\.(json|jsonl|ndjson|zip)$/i.test(name);

export class ChatImporterState {
  stage = $state<ChatImportStage>('idle');
  fileName = $state('');
  fileSize = $state(0);
  preview = $state<ImportChatsResult | null>(null);
  progress = $state<ImportProgress | null>(null);
  result = $state<ImportChatsResult | null>(null);
  problem = $state<Problem | null>(null);
  fraction = $state(0);

  private file: Blob | null = null;
  private controller: AbortController | null = null;
  private token = 0;

  get open(): boolean {
    return this.stage !== 'idle';
  }

  /** Reads the export and counts what would be imported (a dry run: nothing written). */
  async inspect(file: File): Promise<void> {
    if (this.stage === 'importing') return;
    const token = ++this.token;
    this.file = file;
    this.fileName = file.name;
    this.fileSize = file.size;
    this.preview = null;
    this.result = null;
    this.problem = null;
    this.progress = null;
    this.stage = 'reading';
    const client = memory.api;
    if (!client) return this.fail({ title: 'No store is open', message: 'Open a store first, then import into it.' });
    try {
      const preview = await client.importChats(file, { dryRun: true });
      if (token !== this.token) return;
      this.preview = preview;
      this.stage = 'preview';
    } catch (error) {
      if (token === this.token) this.fail(problemOf(error, 'This file cannot be imported'));
    }
  }

  private fail(problem: Problem): void {
    this.problem = problem;
    this.stage = 'failed';
  }

  async start(): Promise<void> {
    const client = memory.api;
    const file = this.file;
    if (!client || !file || this.stage !== 'preview') return;
    const token = ++this.token;
    const controller = new AbortController();
    this.controller = controller;
    this.stage = 'importing';
    this.progress = null;
    this.fraction = 0;
    const rows = this.preview?.messages ?? 0;
    try {
      const result = await client.importChats(file, {
        // Each message is embedded here: small batches keep the bar moving and let Cancel land soon.
        batchSize: 100,
        signal: controller.signal,
        onProgress: (event) => {
          if (token !== this.token || event.kind !== 'import') return;
          this.progress = event;
          this.fraction = Math.max(this.fraction, importFraction(event, rows));
        },
      });
      if (token !== this.token) return;
      this.result = result;
      this.stage = 'done';
    } catch (error) {
      if (token !== this.token) return;
      ({ stage: this.stage, problem: this.problem } = importEnding(error, 'messages'));
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  cancel(): void {
    this.controller?.abort();
  }

  close(): void {
    if (this.stage === 'importing') return;
    this.token++;
    this.stage = 'idle';
    this.file = null;
    this.preview = null;
    this.result = null;
    this.problem = null;
    this.progress = null;
  }
}

export const chatImporter = new ChatImporterState();
