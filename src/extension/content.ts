/**
 * The content script (bundled as one classic script: content scripts cannot be modules). It is
 * idle until asked: Alt+Shift+M on the page (a real key press: `isTrusted`, so the page cannot
 * fake it) or a message from the extension (the popup's buttons). It then keeps the selection, or
 * the page's gist, as an `untrusted` memory (the offscreen document imposes that on every content
 * script whatever it asks), and recalls what relates to the page through the agent tools.
 * Nothing recalled is ever put into the page: the page only sees a status toast.
 */
import type { MemoryClient } from '../client/connect.ts';
import type { RemoteTools } from '../client/tools.ts';
import type { Trust } from '../core/types.ts';
import { chrome } from './chrome.ts';
import { openMemory, openTools } from './connect.ts';
import { PAGE_TAG, failure, isMessage, type CaptureMessage, type CaptureReply, type RelatedHit, type RelatedMessage, type RelatedReply } from './protocol.ts';
import { cleanPageText } from './page-text.ts';

const MAX_CHARS = 4000;

let memory: Promise<MemoryClient> | undefined;
let tools: Promise<RemoteTools> | undefined;

function memoryClient(): Promise<MemoryClient> {
  memory ??= openMemory().catch((error: unknown) => {
    memory = undefined;
    throw error;
  });
  return memory;
}

function toolsClient(): Promise<RemoteTools> {
  tools ??= openTools().catch((error: unknown) => {
    tools = undefined;
    throw error;
  });
  return tools;
}

/** Cleaned page text; never more than the 4,000 characters kept (a page can hold megabytes). */
const clean = (text: string): string => cleanPageText(text, MAX_CHARS);

/** The selection, else the title with the description or the first paragraphs of the main content. */
function pageText(): string {
  const selection = clean(getSelection()?.toString() ?? '');
  if (selection) return selection.slice(0, MAX_CHARS);
  const title = clean(document.title);
  const description = clean(document.querySelector<HTMLMetaElement>('meta[name="description"]')?.content ?? '');
  const main = document.querySelector('main, article, [role="main"]') ?? document.body;
  const paragraphs = [...main.querySelectorAll('p')].map((p) => clean(p.textContent ?? '')).filter((t) => t.length > 0);
  const body = description || paragraphs.slice(0, 3).join('\n') || clean((main as HTMLElement).innerText ?? '');
  return [title, body].filter(Boolean).join('\n').slice(0, MAX_CHARS);
}

/** The page's address without query or fragment (they often carry tokens). */
function pageSource(): string {
  return `${location.origin}${location.pathname}`;
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

/** A status line in the page (open shadow root, text only, never memory content). */
function toast(text: string): void {
  let host = document.getElementById('houkai-toast');
  if (!host) {
    host = document.createElement('div');
    host.id = 'houkai-toast';
    const root = host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent =
      '[role=status]{position:fixed;right:16px;bottom:16px;z-index:2147483647;font:13px/1.4 system-ui,sans-serif;' +
      'background:#1d2a44;color:#f6f4ef;padding:8px 12px;border-radius:8px;box-shadow:0 2px 8px #0005;max-width:320px}';
    const line = document.createElement('div');
    line.setAttribute('role', 'status');
    root.append(style, line);
    document.documentElement.append(host);
  }
  host.shadowRoot!.querySelector('[role=status]')!.textContent = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => host.remove(), 4000);
}

async function capture(): Promise<CaptureReply> {
  try {
    const text = pageText();
    if (!text) throw Object.assign(new Error('Nothing to remember on this page'), { code: 'INVALID_ARGUMENT' });
    toast('Houkai: remembering…');
    const client = await memoryClient();
    const { memory: stored } = await client.remember(text, { type: 'episodic', source: pageSource(), tags: [PAGE_TAG] });
    toast('Remembered in Houkai (untrusted page content)');
    return { ok: true, id: stored.id, text: stored.text, trust: stored.trust };
  } catch (error) {
    const f = failure(error);
    toast(`Houkai could not remember this page: ${f.code}`);
    return f;
  }
}

async function related(k: number): Promise<RelatedReply> {
  try {
    const query = (clean(getSelection()?.toString() ?? '') || pageText()).slice(0, 1000);
    const answer = JSON.parse(await (await toolsClient()).dispatch('recall', { query, k })) as
      | { error: { code: string; message: string } }
      | { id: string; text: string; trust: Trust; score: number }[];
    if (!Array.isArray(answer)) return { ok: false, ...answer.error };
    const hits: RelatedHit[] = answer.map((h) => ({ id: h.id, text: h.text, trust: h.trust, score: h.score }));
    return { ok: true, query, hits };
  } catch (error) {
    return failure(error);
  }
}

addEventListener(
  'keydown',
  (event) => {
    if (!event.isTrusted || !event.altKey || !event.shiftKey || event.code !== 'KeyM') return;
    event.preventDefault();
    void capture();
  },
  true,
);

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return undefined;
  if (isMessage<CaptureMessage>(message, 'houkai:capture')) {
    void capture().then(sendResponse);
    return true;
  }
  if (isMessage<RelatedMessage>(message, 'houkai:related')) {
    const k = typeof message.k === 'number' && message.k > 0 && message.k <= 20 ? Math.floor(message.k) : 5;
    void related(k).then(sendResponse);
    return true;
  }
  return undefined;
});
