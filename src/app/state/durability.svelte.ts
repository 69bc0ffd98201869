/**
 * Durability in the app: the store's `durability()` report (a store the browser deleted or
 * cleared, storage that is not persistent, the last whole export) and automatic exports every N
 * days while the app is open: a `<store>-<date>.ahkai` download, or a file the person chose
 * (File System Access, where the browser has it), overwritten each time. One tab exports at a
 * time (a Web Lock), and the last export time lives in the registry of stores, so every tab
 * sees it. An automatic export never runs while a loss is reported or the store is empty, so it
 * cannot overwrite a good backup with what is left of a lost store.
 */
import type { DurabilityReport } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { bytes, fileSafe } from '../lib/format.ts';
import { archiveFileName, downloadBlob } from '../lib/download.ts';
import { DEFAULT_AUTO_EXPORT, loadAutoExport, saveAutoExport, type AutoExportSettings, type BackupFileHandle } from '../lib/auto-export-store.ts';
import { memory } from './memory.svelte.ts';
import { toasts } from './toasts.svelte.ts';

/** How often the app looks again (loss, persistence, whether an export is due). */
export const CHECK_EVERY_MS = 60_000;

type SavePicker = (options: {
  suggestedName: string;
  types: { description: string; accept: Record<string, string[]> }[];
}) => Promise<BackupFileHandle>;

function savePicker(): SavePicker | undefined {
  const picker = (globalThis as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;
  return typeof picker === 'function' ? picker.bind(globalThis) : undefined;
}

type LockManager = { request(name: string, options: { ifAvailable: boolean }, callback: (lock: unknown) => Promise<void>): Promise<void> };

/** Runs `fn` under an exclusive, non-waiting Web Lock (skipped when another tab holds it). */
async function exclusively(name: string, fn: () => Promise<void>): Promise<void> {
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  if (!locks) return fn();
  await locks.request(name, { ifAvailable: true }, async (lock) => {
    if (lock) await fn();
  });
}

export const LOSS_TEXT: Record<'canary' | 'rows' | 'rollback', string> = {
  canary: 'The browser no longer has this store’s database: it was deleted or cleared, and an empty one is in its place.',
  rows: 'Memories were removed from this store’s database outside the app: it holds fewer than its own records say it should.',
  rollback: 'This store went back to an older state: an older copy of its database came back, and later changes are missing.',
};

export class DurabilityState {
  report = $state.raw<DurabilityReport | null>(null);
  settings = $state.raw<AutoExportSettings>({ ...DEFAULT_AUTO_EXPORT });
  /** The chosen file is waiting for the person to allow writing to it again. */
  needsPermission = $state(false);
  /** The person asked the browser to keep the storage and it said no (until then, "not persistent" is no alarm). */
  refused = $state(false);
  exporting = $state(false);
  error = $state<string | null>(null);
  /** What the last export from this tab did. */
  lastResult = $state<string | null>(null);
  readonly canPickFile = savePicker() !== undefined;
  private store = '';
  private warned = '';

  constructor() {
    memory.onOpen(() => void this.opened());
    if (typeof window !== 'undefined') setInterval(() => void this.tick(), CHECK_EVERY_MS);
  }

  private async opened(): Promise<void> {
    this.store = memory.storeName;
    this.report = null;
    this.needsPermission = false;
    this.error = null;
    this.lastResult = null;
    try {
      this.settings = await loadAutoExport(this.store);
    } catch {
      this.settings = { ...DEFAULT_AUTO_EXPORT };
    }
    await this.tick();
  }

  /** Reads the report (acknowledging the reported loss when asked). */
  async refresh(acknowledge = false): Promise<DurabilityReport | null> {
    const client = memory.api;
    if (!client) return null;
    try {
      const report = await client.durability(acknowledge ? { acknowledge: true } : undefined);
      if (client !== memory.api) return null;
      this.report = report;
      this.warn(report);
      return report;
    } catch (error) {
      this.error = describe(error);
      return null;
    }
  }

  /** Says so once per store and session, on any tab of the app, when a loss is first seen. */
  private warn(report: DurabilityReport): void {
    if (!report.loss || this.warned === this.store) return;
    this.warned = this.store;
    toasts.push(`Store “${this.store}” looks lost or cleared. ${LOSS_TEXT[report.loss.reason]}`, {
      tone: 'error',
      timeout: 20_000,
      action: { label: 'Details', run: () => void (location.hash = '#/activity') },
    });
  }

  /** Whether an automatic export is due now. */
  due(report: DurabilityReport | null = this.report, now = Date.now() / 1000): boolean {
    if (!this.settings.enabled || !report || report.suspectedLoss || report.count === 0) return false;
    return report.lastExportAt === null || now - report.lastExportAt >= this.settings.everyDays * 86_400;
  }

  /** When the next automatic export is due (Unix seconds), or null. */
  nextDue(): number | null {
    if (!this.settings.enabled || !this.report) return null;
    return this.report.lastExportAt === null ? Date.now() / 1000 : this.report.lastExportAt + this.settings.everyDays * 86_400;
  }

  /** The periodic look: refresh, then export when due. */
  async tick(): Promise<void> {
    if (!memory.api || this.exporting) return;
    const report = await this.refresh();
    if (this.due(report)) await this.exportNow('auto');
  }

  /**
   * Exports the whole store now ('manual'), or if still due ('auto': checked again under the
   * lock, since another tab may just have done it).
   */
  async exportNow(kind: 'auto' | 'manual'): Promise<void> {
    const client = memory.api;
    if (!client || this.exporting) return;
    const store = this.store;
    this.exporting = true;
    this.error = null;
    try {
      await exclusively(`houkai-web:auto-export:${store}`, async () => {
        if (kind === 'auto' && !this.due(await this.refresh())) return;
        const handle = this.settings.target === 'file' ? this.settings.handle : null;
        if (handle && (await handle.queryPermission?.({ mode: 'readwrite' })) !== 'granted') {
          // Permission to write a chosen file lasts a session at most; asking again needs a click.
          this.needsPermission = true;
          return;
        }
        const blob = await client.exportArchive({ includeSuperseded: true });
        if (handle) {
          try {
            const writable = await handle.createWritable();
            await writable.write(blob);
            await writable.close();
            this.lastResult = `Wrote ${handle.name} (${bytes(blob.size)}).`;
          } catch (error) {
            // The archive is made: rather than lose it, download it, and say why.
            this.download(blob, store);
            this.error = `Could not write ${handle.name} (${describe(error)}); downloaded it instead.`;
          }
        } else {
          this.download(blob, store);
        }
        toasts.push(kind === 'auto' ? `Automatic export: ${this.lastResult}` : `Exported: ${this.lastResult}`);
        await this.refresh();
      });
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.exporting = false;
    }
  }

  private download(blob: Blob, store: string): void {
    const name = archiveFileName(store);
    downloadBlob(blob, name);
    this.lastResult = `Downloaded ${name} (${bytes(blob.size)}).`;
  }

  private async save(next: AutoExportSettings): Promise<void> {
    this.settings = next;
    try {
      await saveAutoExport(this.store, next);
    } catch (error) {
      this.error = describe(error);
    }
  }

  async setEnabled(enabled: boolean): Promise<void> {
    await this.save({ ...this.settings, enabled });
    if (enabled) await this.tick();
  }

  async setEveryDays(days: number): Promise<void> {
    if (!Number.isFinite(days) || days < 1) return;
    await this.save({ ...this.settings, everyDays: Math.round(days) });
    await this.tick();
  }

  async setTarget(target: 'download' | 'file'): Promise<void> {
    if (target === 'file' && !this.settings.handle) {
      await this.chooseFile();
      return;
    }
    this.needsPermission = false;
    await this.save({ ...this.settings, target });
  }

  /** Asks for the backup file (needs a click); the handle is kept in IndexedDB. */
  async chooseFile(): Promise<void> {
    const picker = savePicker();
    if (!picker) return;
    try {
      const handle = await picker({
        suggestedName: `${fileSafe(this.store)}-backup.ahkai`,
        types: [{ description: 'Houkai memory archive', accept: { 'application/gzip': ['.ahkai'] } }],
      });
      this.needsPermission = false;
      await this.save({ ...this.settings, target: 'file', handle });
      await this.tick();
    } catch (error) {
      if ((error as { name?: string }).name !== 'AbortError') this.error = describe(error);
    }
  }

  /** Asks again for permission to write the chosen file (needs a click), then exports if due. */
  async grantPermission(): Promise<void> {
    const handle = this.settings.handle;
    if (!handle) return;
    try {
      const state = (await handle.requestPermission?.({ mode: 'readwrite' })) ?? 'granted';
      if (state !== 'granted') {
        this.error = `Writing to ${handle.name} was not allowed.`;
        return;
      }
      this.needsPermission = false;
      await this.exportNow('auto');
    } catch (error) {
      this.error = describe(error);
    }
  }

  /** Asks the browser to keep this site's storage (it decides; Chromium grants it to installed or engaged sites). */
  async persist(): Promise<void> {
    const granted = await navigator.storage?.persist?.().catch(() => false);
    this.refused = !granted;
    if (!granted) toasts.push('The browser kept its default: storage may still be cleared when space runs low. Installing the app usually makes it persistent.', { tone: 'error', timeout: 8000 });
    await this.refresh();
  }

  async acknowledge(): Promise<void> {
    await this.refresh(true);
  }
}

export const durability = new DurabilityState();
