/**
 * The background service worker's part. An MV3 service worker cannot start a dedicated worker,
 * and it is stopped after ~30 s idle, so it does not hold the memory: on request it starts the
 * offscreen document (./host.ts), which owns the memory worker for as long as the browser runs.
 */
import { chrome } from './chrome.ts';
import { isMessage, type EnsureHostMessage, type HostReadyMessage } from './protocol.ts';

const READY_TIMEOUT_MS = 15_000;

export interface MemoryHostStarter {
  /** The offscreen document, relative to the extension's root (default 'offscreen.html'). */
  offscreenPath?: string;
  /** Why the extension needs it, as Chrome asks. */
  justification?: string;
}

/**
 * Call once in the background service worker: the popup's and content scripts' `openMemory()`
 * ask it to start the offscreen document that serves the memory (`serveMemoryHost`).
 */
export function startMemoryHost(options: MemoryHostStarter = {}): void {
  const offscreenPath = options.offscreenPath ?? 'offscreen.html';
  const justification = options.justification ?? 'Runs the memory worker (IndexedDB, the embedding model, the vector index) for the popup and content scripts.';
  let starting: Promise<void> | undefined;
  let announceReady: (() => void) | undefined;

  async function hostRunning(): Promise<boolean> {
    const contexts = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'], documentUrls: [chrome.runtime.getURL(offscreenPath)] });
    return contexts.length > 0;
  }

  async function startHost(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      announceReady = resolve;
      timer = setTimeout(() => reject(new Error('the offscreen document did not report ready')), READY_TIMEOUT_MS);
    });
    ready.catch(() => undefined); // observed below; never an unhandled rejection if createDocument fails first
    try {
      await chrome.offscreen.createDocument({ url: offscreenPath, reasons: ['WORKERS'], justification });
      await ready;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts the offscreen document once, however many contexts ask at the same time. */
  async function ensureHost(): Promise<void> {
    if (starting) return starting;
    if (await hostRunning()) return;
    starting ??= startHost().finally(() => {
      starting = undefined;
      announceReady = undefined;
    });
    return starting;
  }

  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id) return undefined;
    if (isMessage<HostReadyMessage>(message, 'houkai:host-ready')) {
      announceReady?.();
      return undefined;
    }
    if (!isMessage<EnsureHostMessage>(message, 'houkai:ensure-host')) return undefined;
    ensureHost().then(
      () => sendResponse({ ok: true }),
      (error: unknown) => sendResponse({ ok: false, message: error instanceof Error ? error.message : String(error) }),
    );
    return true; // answers asynchronously
  });
}
