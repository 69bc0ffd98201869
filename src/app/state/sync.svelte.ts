/**
 * Sync in the app: the form's settings (server and account name kept per store in this browser;
 * the password or token only for this page's life), the worker's `syncStatus()`, and `sync()`
 * with its progress. Nothing is sent anywhere until the person presses Sync.
 */
import type { ProgressEvent, SyncResult, SyncStatus } from '../../index.ts';
import { problemOf, type Problem } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';
import { toasts } from './toasts.svelte.ts';

const KEY = 'houkai:sync:';
/** How often the panel asks the worker while sync is live or running. */
export const STATUS_EVERY_MS = 2_000;

interface Saved {
  url: string;
  username: string;
  live: boolean;
}

function load(store: string): Saved {
  try {
    const raw = localStorage.getItem(KEY + store);
    if (raw) {
      const v = JSON.parse(raw) as Partial<Saved>;
      return { url: typeof v.url === 'string' ? v.url : '', username: typeof v.username === 'string' ? v.username : '', live: v.live !== false };
    }
  } catch {
    /* storage refused: start empty */
  }
  return { url: '', username: '', live: true };
}

export class SyncState {
  url = $state('');
  username = $state('');
  secret = $state('');
  /** End-to-end encryption: the passphrase (kept for this page's life only), a new one to change it, and whether the store keeps the key. */
  passphrase = $state('');
  newPassphrase = $state('');
  rememberKey = $state(false);
  /** 'password': basic auth with the user name; 'token': a JWT. */
  method = $state<'password' | 'token'>('password');
  live = $state(true);
  status = $state.raw<SyncStatus | null>(null);
  running = $state(false);
  progress = $state<string | null>(null);
  problem = $state.raw<Problem | null>(null);
  last = $state.raw<SyncResult | null>(null);
  private store = '';

  constructor() {
    memory.onOpen(() => {
      this.store = memory.storeName;
      Object.assign(this, load(this.store), { secret: '', passphrase: '', newPassphrase: '', rememberKey: false, status: null, problem: null, last: null, progress: null });
      void this.refresh();
    });
    if (typeof window !== 'undefined') {
      setInterval(() => {
        if (this.status && (this.status.live || this.status.state === 'syncing') && this.status.state !== 'off') void this.refresh();
      }, STATUS_EVERY_MS);
    }
  }

  async refresh(): Promise<void> {
    const client = memory.api;
    if (!client) return;
    try {
      this.status = await client.syncStatus();
    } catch (error) {
      this.problem = problemOf(error, 'Sync status unavailable');
    }
  }

  private save(): void {
    try {
      localStorage.setItem(KEY + this.store, JSON.stringify({ url: this.url.trim(), username: this.username.trim(), live: this.live }));
    } catch {
      /* not kept: the form still works */
    }
  }

  private say(event: ProgressEvent): void {
    if (event.kind !== 'sync') return;
    const n = event.done.toLocaleString();
    this.progress =
      event.phase === 'push' ? `Preparing ${n}${event.total ? ` of ${event.total.toLocaleString()}` : ''} changes to send…`
      : event.phase === 'replicate' ? (event.done ? `Replicating: ${n} documents moved…` : 'Talking to the server…')
      : event.phase === 'rekey' ? `Sealing ${n} memories under the new passphrase…`
      : `Applying ${n} changes from the server…`;
  }

  async start(): Promise<void> {
    const client = memory.api;
    if (!client || this.running) return;
    this.problem = null;
    this.running = true;
    this.progress = 'Starting…';
    this.save();
    const secret = this.secret;
    const auth = secret === '' ? undefined : this.method === 'token' ? { token: secret } : { username: this.username.trim(), password: secret };
    const passphrase = this.passphrase;
    const encryption =
      passphrase === ''
        ? undefined
        : { passphrase, ...(this.newPassphrase ? { newPassphrase: this.newPassphrase } : {}), ...(this.rememberKey ? { remember: true } : {}) };
    try {
      this.last = await client.sync({ url: this.url.trim(), ...(auth ? { auth } : {}), ...(encryption ? { encryption } : {}), live: this.live, onProgress: (e) => this.say(e) });
      if (encryption?.newPassphrase) Object.assign(this, { passphrase: encryption.newPassphrase, newPassphrase: '' });
      const r = this.last;
      toasts.push(`Synced: ${r.pushed.toLocaleString()} sent, ${(r.applied + r.deleted).toLocaleString()} received${r.conflicts ? `, ${r.conflicts} conflict${r.conflicts === 1 ? '' : 's'} to review` : ''}.`);
    } catch (error) {
      this.problem = problemOf(error, 'Sync failed');
    } finally {
      this.running = false;
      this.progress = null;
      await this.refresh();
    }
  }

  async stop(): Promise<void> {
    const client = memory.api;
    if (!client) return;
    try {
      await client.stopSync();
    } catch (error) {
      this.problem = problemOf(error, 'Sync could not be stopped');
    }
    await this.refresh();
  }
}

export const sync = new SyncState();
