/**
 * The background service worker. An MV3 service worker cannot start a dedicated worker, and it
 * is stopped after ~30 s idle, so it does not hold the memory: on request it starts the
 * offscreen document, which owns the memory worker for as long as the browser runs.
 */
import { chrome } from './chrome.ts';
import { isMessage, type EnsureHostMessage, type HostReadyMessage } from './protocol.ts';

const OFFSCREEN_PATH = 'offscreen.html';
const READY_TIMEOUT_MS = 15_000;

let starting: Promise<void> | undefined;
let announceReady: (() => void) | undefined;

async function hostRunning(): Promise<boolean> {
  const contexts = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'], documentUrls: [chrome.runtime.getURL(OFFSCREEN_PATH)] });
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
    await chrome.offscreen.createDocument({
      url: OFFSCREEN_PATH,
      reasons: ['WORKERS'],
      justification: 'Runs the memory worker (IndexedDB, the bundled embedding model, the vector index) for the popup and content scripts.',
    });
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
