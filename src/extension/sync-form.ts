/**
 * The popup's Sync section: one round with the person's CouchDB database. The extension holds no
 * host access at install; the first sync with a server asks Chrome for access to that server only
 * (`optional_host_permissions`), from the click that started it. The address and user name are
 * kept for the next visit; the password and passphrase never are.
 */
import type { MemoryClient } from '../client/connect.ts';
import { MemoryError } from '../core/errors.ts';
import type { SyncOptions } from '../core/api.ts';
import { chrome } from './chrome.ts';

const KEPT = 'houkai:sync-form';

/**
 * The host permission a database address needs, as a match pattern. Only https, or http on this
 * computer (a password sent in the clear over a network is refused here, before Chrome is asked).
 */
export function hostPattern(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new MemoryError('INVALID_ARGUMENT', 'The database address is not a URL (e.g. https://couch.example.com/memories)', { field: 'url' });
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new MemoryError('INVALID_ARGUMENT', 'The extension syncs over https only (http only with a server on this computer)', { field: 'url' });
  }
  return `${url.protocol}//${url.hostname}/*`;
}

/** Asks Chrome for access to the server (no prompt once granted); a refusal is PERMISSION_DENIED. */
export async function grantHost(address: string): Promise<void> {
  const pattern = hostPattern(address);
  const granted = await chrome.permissions.request({ origins: [pattern] });
  if (!granted) {
    throw new MemoryError('PERMISSION_DENIED', `Chrome did not grant access to ${new URL(address).host}; sync needs it to reach the server`, { origin: pattern });
  }
}

export interface SyncFormFields {
  url: string;
  username: string;
  password: string;
  passphrase: string;
}

/** The sync options the form's fields make (the passphrase turns end-to-end encryption on). */
export function syncOptionsOf(fields: SyncFormFields): SyncOptions {
  return {
    url: fields.url.trim(),
    ...(fields.username ? { auth: { username: fields.username, password: fields.password } } : {}),
    ...(fields.passphrase ? { encryption: { passphrase: fields.passphrase, remember: false } } : {}),
  };
}

export function keptFields(): Pick<SyncFormFields, 'url' | 'username'> {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) ?? '{}') as Partial<SyncFormFields>;
    return { url: typeof kept.url === 'string' ? kept.url : '', username: typeof kept.username === 'string' ? kept.username : '' };
  } catch {
    return { url: '', username: '' };
  }
}

/** Asks for the host, runs one round, keeps the address and user name; returns what to say. */
export async function syncOnce(memory: MemoryClient, fields: SyncFormFields): Promise<string> {
  const options = syncOptionsOf(fields);
  await grantHost(options.url);
  const result = await memory.sync(options);
  localStorage.setItem(KEPT, JSON.stringify({ url: options.url, username: fields.username }));
  const sealed = (await memory.syncStatus()).encrypted ? ', end-to-end encrypted' : '';
  return `Synced${sealed}: ${result.pushed} sent, ${result.applied + result.deleted} received`;
}
