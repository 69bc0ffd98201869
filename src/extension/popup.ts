/**
 * The toolbar popup: remember, recall, keep the current page (through its content script) and
 * show what relates to it. Memory text is only ever set as text, never parsed as HTML. The
 * popup's two connections are on `window.houkai` for the devtools console.
 */
import type { MemoryClient } from '../client/connect.ts';
import type { RemoteTools } from '../client/tools.ts';
import type { RecallHit, Trust } from '../core/types.ts';
import { chrome } from './chrome.ts';
import { openMemory, openTools } from './connect.ts';
import { keptFields, syncOnce } from './sync-form.ts';
import { failure, type CaptureMessage, type CaptureReply, type RelatedHit, type RelatedMessage, type RelatedReply } from './protocol.ts';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`popup.html has no #${id}`);
  return found as T;
}

const status = element<HTMLOutputElement>('status');
const rememberForm = element<HTMLFormElement>('remember-form');
const rememberText = element<HTMLTextAreaElement>('remember-text');
const recallForm = element<HTMLFormElement>('recall-form');
const recallQuery = element<HTMLInputElement>('recall-query');
const results = element<HTMLOListElement>('results');
const captureButton = element<HTMLButtonElement>('capture');
const relatedButton = element<HTMLButtonElement>('related');
const syncForm = element<HTMLFormElement>('sync-form');
const syncStatus = element<HTMLOutputElement>('sync-status');
const syncButton = element<HTMLButtonElement>('sync-now');
const syncField = (id: string): HTMLInputElement => element<HTMLInputElement>(id);

function say(text: string, isError = false): void {
  status.textContent = text;
  status.classList.toggle('error', isError);
}

function sayError(error: unknown): void {
  const f = failure(error);
  say(`${f.code}: ${f.message}`, true);
}

interface Shown {
  id: string;
  text: string;
  trust: Trust;
  score?: number;
  source?: string | null;
  tags?: readonly string[];
}

function render(items: Shown[], emptyText: string): void {
  results.replaceChildren();
  if (items.length === 0) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = emptyText;
    results.append(li);
    return;
  }
  for (const item of items) {
    const li = document.createElement('li');
    li.className = 'hit';
    li.dataset.id = item.id;
    li.dataset.trust = item.trust;
    if (item.tags) li.dataset.tags = item.tags.join(' ');
    const text = document.createElement('p');
    text.className = 'text';
    text.textContent = item.text;
    const meta = document.createElement('div');
    meta.className = 'meta';
    const badge = document.createElement('span');
    badge.className = `badge trust-${item.trust}`;
    badge.textContent = item.trust;
    meta.append(badge);
    if (item.source) {
      const source = document.createElement('span');
      source.className = 'source';
      source.textContent = item.source;
      source.title = item.source;
      meta.append(source);
    }
    if (item.score !== undefined) {
      const score = document.createElement('span');
      score.className = 'score';
      score.textContent = item.score.toFixed(2);
      meta.append(score);
    }
    li.append(text, meta);
    results.append(li);
  }
}

const fromHit = (hit: RecallHit): Shown => ({
  id: hit.memory.id,
  text: hit.memory.text,
  trust: hit.memory.trust,
  score: hit.score,
  source: hit.memory.source,
  tags: hit.memory.tags,
});
const fromRelated = (hit: RelatedHit): Shown => ({ id: hit.id, text: hit.text, trust: hit.trust, score: hit.score });

/** The tab under the popup (the active tab of this window). */
async function activeTabId(): Promise<number> {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  if (tab?.id === undefined) throw Object.assign(new Error('No active tab'), { code: 'NOT_FOUND' });
  return tab.id;
}

async function askTab<T>(message: CaptureMessage | RelatedMessage): Promise<T> {
  const tabId = await activeTabId();
  try {
    return (await chrome.tabs.sendMessage(tabId, message)) as T;
  } catch {
    throw Object.assign(new Error('This page has no Houkai content script (only http and https pages do)'), { code: 'NOT_FOUND' });
  }
}

async function main(): Promise<void> {
  let memory: MemoryClient;
  let tools: RemoteTools;
  try {
    [memory, tools] = await Promise.all([openMemory(), openTools()]);
  } catch (error) {
    sayError(error);
    return;
  }
  Object.assign(globalThis, { houkai: { memory, tools } });
  say('ready');

  rememberForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = rememberText.value;
    void memory.remember(text, { source: 'extension:popup' }).then(
      ({ memory: stored, action }) => {
        rememberText.value = '';
        say(action === 'stored' ? 'Remembered' : `Remembered (${action})`);
        render([{ id: stored.id, text: stored.text, trust: stored.trust, source: stored.source }], '');
      },
      sayError,
    );
  });

  recallForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = recallQuery.value;
    void memory.recall(query, { k: 8, mode: 'hybrid' }).then((hits) => {
      say(`${hits.length} found`);
      render(hits.map(fromHit), 'Nothing found');
    }, sayError);
  });

  captureButton.addEventListener('click', () => {
    void askTab<CaptureReply>({ type: 'houkai:capture' }).then((reply) => {
      if (!reply.ok) return sayError(reply);
      say('Remembered from the page');
      render([{ id: reply.id, text: reply.text, trust: reply.trust }], '');
    }, sayError);
  });

  relatedButton.addEventListener('click', () => {
    void askTab<RelatedReply>({ type: 'houkai:related', k: 5 }).then((reply) => {
      if (!reply.ok) return sayError(reply);
      say(`${reply.hits.length} related to this page`);
      render(reply.hits.map(fromRelated), 'Nothing related yet');
    }, sayError);
  });

  const kept = keptFields();
  syncField('sync-url').value = kept.url;
  syncField('sync-user').value = kept.username;
  syncForm.addEventListener('submit', (event) => {
    event.preventDefault();
    syncButton.disabled = true;
    syncStatus.classList.remove('error');
    syncStatus.textContent = 'Syncing…';
    const fields = { url: syncField('sync-url').value, username: syncField('sync-user').value, password: syncField('sync-password').value, passphrase: syncField('sync-passphrase').value };
    void syncOnce(memory, fields)
      .then(
        (said) => {
          syncStatus.textContent = said;
        },
        (error: unknown) => {
          const f = failure(error);
          syncStatus.textContent = `${f.code}: ${f.message}`;
          syncStatus.classList.add('error');
        },
      )
      .finally(() => {
        syncButton.disabled = false;
      });
  });

  addEventListener('pagehide', () => {
    void memory.close();
    tools.close();
  });
}

void main();
