/**
 * Import of a chat history (a ChatGPT or Claude data export, or JSONL), in steps: a dry run reads
 * and counts what the file holds (nothing written), the person sees the conversations, messages,
 * speakers and dates, then imports with progress and Cancel, and sees the summary. Every message
 * becomes an episodic memory; one already imported is skipped; the import is one Undo in Activity.
 */
import type { ImportChatsResult } from '../../index.ts';
import { problemOf } from '../lib/errors.ts';
import { ImportFlow } from './import-flow.svelte.ts';
import { memory } from './memory.svelte.ts';

/** A file the chat import reads rather than the archive import: JSON, JSONL or a zip. */
export const isChatFile = (name: string): boolean => /\.(json|jsonl|ndjson|zip)$/i.test(name);

export class ChatImporterState extends ImportFlow<ImportChatsResult> {
  preview = $state<ImportChatsResult | null>(null);

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

  async start(): Promise<void> {
    const client = memory.api;
    const file = this.file;
    if (!client || !file || this.stage !== 'preview') return;
    // Each message is embedded here: small batches keep the bar moving and let Cancel land soon.
    await this.run((signal, onProgress) => client.importChats(file, { batchSize: 100, signal, onProgress }), this.preview?.messages ?? 0, 'messages');
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
