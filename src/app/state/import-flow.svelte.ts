/**
 * What the archive import and the chat import share once a file is chosen: the dialog's stage,
 * the file's name and size, progress that only grows, the result or the ending in words, and a
 * run that Cancel aborts. A token tells a late answer (of a file since replaced or closed) from the
 * current one. Each import adds its own preview and options (importer, chat-importer).
 */
import type { ProgressEvent } from '../../index.ts';
import type { Problem } from '../lib/errors.ts';
import { importEnding, importFraction, type ImportProgress } from '../lib/import-progress.ts';

export type ImportStage = 'idle' | 'reading' | 'preview' | 'importing' | 'done' | 'failed' | 'cancelled';

export abstract class ImportFlow<R> {
  stage = $state<ImportStage>('idle');
  fileName = $state('');
  fileSize = $state(0);
  progress = $state<ImportProgress | null>(null);
  result = $state<R | null>(null);
  problem = $state<Problem | null>(null);
  /** The bar's value: the highest fraction any event reached, so it never moves back. */
  fraction = $state(0);

  protected file: Blob | null = null;
  protected token = 0;
  private controller: AbortController | null = null;

  get open(): boolean {
    return this.stage !== 'idle';
  }

  protected fail(problem: Problem): void {
    this.problem = problem;
    this.stage = 'failed';
  }

  /**
   * Runs the import: `call` gets the signal and the progress listener; `rows` is what the preview
   * counted (for the bar), `what` names what a cancel rolls back ("rows", "messages").
   */
  protected async run(call: (signal: AbortSignal, onProgress: (event: ProgressEvent) => void) => Promise<R>, rows: number, what: string, first: ImportProgress | null = null): Promise<void> {
    const token = ++this.token;
    const controller = new AbortController();
    this.controller = controller;
    this.stage = 'importing';
    this.problem = null;
    this.progress = first;
    this.fraction = 0;
    try {
      const result = await call(controller.signal, (event) => {
        if (token !== this.token || event.kind !== 'import') return;
        this.progress = event;
        this.fraction = Math.max(this.fraction, importFraction(event, rows));
      });
      if (token !== this.token) return;
      this.result = result;
      this.stage = 'done';
    } catch (error) {
      if (token !== this.token) return;
      ({ stage: this.stage, problem: this.problem } = importEnding(error, what));
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  cancel(): void {
    this.controller?.abort();
  }
}
