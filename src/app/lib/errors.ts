/**
 * Turns any failure into words a person can act on, using the MemoryError code and details. The
 * code stays with the message (screens show it small, beside the words) for those who want it;
 * `field` says which control caused it, so the message can sit next to that control.
 */
import { MemoryError } from '../../index.ts';
import { bytes } from './format.ts';

export interface Problem {
  title: string;
  message: string;
  code?: string;
  /** The input that caused it (details.field), when the store names one. */
  field?: string;
}

const ARCHIVE_REASONS: Record<string, string> = {
  'not-gzip': 'This file is not an .ahkai archive: it is not gzip-compressed data.',
  empty: 'This archive is empty: it has no header line.',
  'not-json': 'This file is compressed, but its first line is not an AI-Houkai export header.',
  'bad-format': 'This file does not say it is an AI-Houkai export (the header names another format).',
  'future-version': 'This archive was written by a newer version of AI-Houkai than this app can read.',
  truncated: 'This archive is cut short: the file ends before its last block. Copy it again and retry.',
  corrupt: 'This archive is damaged: its compressed data fails the integrity check.',
  'too-long': 'This archive holds a line too long to read safely.',
  changed: 'The file changed while it was being read. Try again once it is complete.',
};

/** A memory's text as a short quotation for messages. */
export function quote(text: string | null | undefined, max = 60): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  if (!flat) return 'that memory';
  return `“${flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat}”`;
}

/** INVALID_ARGUMENT in words, by the field the store names. */
function invalidArgument(error: MemoryError): string {
  const field = typeof error.details['field'] === 'string' ? (error.details['field'] as string) : '';
  const limit = typeof error.details['limit'] === 'number' ? (error.details['limit'] as number) : null;
  if (field === 'text' || field.endsWith('.text')) {
    if (limit !== null || /larger than|too long|bytes/i.test(error.message)) {
      return `This memory is too long to keep: a memory can hold at most ${bytes(limit ?? 1_048_576).replace(/\.0 /, ' ')} of text. Shorten it, or split it into several memories.`;
    }
    if (/empty|whitespace/i.test(error.message)) return 'Write something to remember first: the text is empty.';
    return 'This text cannot be stored as it is.';
  }
  if (field === 'tags' || field === 'tag') return 'A tag cannot be blank or contain a comma. Separate tags with commas or spaces.';
  if (field === 'importance') return 'Importance must be a number between 0 and 1.';
  if (field === 'name' || field === 'to' || field === 'from') return 'A store name must not be blank and can be at most 200 characters.';
  return error.message.charAt(0).toUpperCase() + error.message.slice(1);
}

export function problemOf(error: unknown, fallbackTitle = 'Something went wrong'): Problem {
  if (error instanceof MemoryError) {
    const reason = typeof error.details['reason'] === 'string' ? (error.details['reason'] as string) : undefined;
    const field = typeof error.details['field'] === 'string' ? (error.details['field'] as string) : undefined;
    const name = typeof error.details['name'] === 'string' ? (error.details['name'] as string) : undefined;
    const base = { code: error.code, ...(field ? { field } : {}) };
    switch (error.code) {
      case 'INVALID_ARGUMENT':
        return { title: 'Not accepted', message: invalidArgument(error), ...base };
      case 'INVALID_ARCHIVE':
        return { title: 'Not a readable archive', message: (reason && ARCHIVE_REASONS[reason]) ?? error.message, code: `${error.code}${reason ? ` · ${reason}` : ''}` };
      case 'INVALID_CHATS':
        return { title: 'Not a chat export this app can read', message: `${error.message}. It reads a ChatGPT or Claude data export (conversations.json, or ChatGPT’s zip) and JSONL lines of { speaker, time, text, conversation }.`, ...base };
      case 'MODEL_MISMATCH':
        return {
          title: 'Vectors from another model',
          message: 'The archive’s vectors were made by a different embedding model. Choose “Re-embed with this store’s model” to import it.',
          ...base,
        };
      case 'IMPORT_CONFLICT': {
        const collisions = Array.isArray(error.details['collisions']) ? (error.details['collisions'] as unknown[]).length : 0;
        return {
          title: 'Some memories already exist',
          message: `${collisions ? `${collisions.toLocaleString()} ${collisions === 1 ? 'id is' : 'ids are'}` : 'Ids are'} already in this store and the policy is “error”, so nothing was imported. Pick skip, overwrite or rename.`,
          ...base,
        };
      }
      case 'ABORTED':
        return { title: 'Cancelled', message: 'The operation was cancelled. Nothing was changed.', ...base };
      case 'STORAGE_QUOTA':
        return { title: 'Out of storage', message: 'The browser’s storage for this site is full. Nothing was written: free some space (export and delete a store you no longer need) and try again.', ...base };
      case 'NOT_FOUND':
        if (/database/i.test(error.message)) return { title: 'No such database', message: 'There is no database at that address. Create it on the server first (a database per person, or one shared by a team).', ...base };
        return name !== undefined
          ? { title: 'No such store', message: `There is no store named “${name}” any more (it may have been deleted in another tab).`, ...base }
          : { title: 'Not found', message: 'That memory no longer exists (it may have been forgotten in another tab).', ...base };
      case 'STORE_IN_USE':
        return { title: 'Store in use', message: `“${name ?? 'This store'}” is open in another tab or by an agent. Close it there, then try again.`, ...base };
      case 'STORE_EXISTS':
        return { title: 'Name taken', message: `There is already a store named “${name ?? ''}”. Choose another name.`, ...base };
      case 'PERMISSION_DENIED':
        return { title: 'Not allowed', message: 'This connection is not allowed to do that.', ...base };
      case 'MODEL_UNAVAILABLE':
        return { title: 'The model could not be loaded', message: 'The embedding model could not be loaded on this device, so nothing can be embedded right now. Reload the page to try again.', ...base };
      case 'EMBEDDER_MISMATCH':
      case 'DIMENSION_MISMATCH':
        return { title: 'Another model made this store', message: 'This store’s memories were embedded by another model than the one loaded now.', ...base };
      case 'SCHEMA_TOO_NEW':
        return { title: 'Written by a newer version', message: 'This store was written by a newer version of the app. Reload to update the app, then open it again.', ...base };
      case 'CLOSED':
        return { title: 'Closed', message: 'The store was closed (another tab may have deleted or renamed it). Open it again to continue.', ...base };
      case 'SYNC_AUTH':
        return { title: 'Sync refused', message: 'The server refused these credentials, or this account may not use that database. Check the user name and password (or token), and that the account is a member of the database.', ...base };
      case 'SYNC_UNREACHABLE':
        if (error.details['reason'] === 'blocked-by-policy') {
          return {
            title: 'Blocked by this app’s connect policy',
            message: `Nothing was sent: this app’s connect policy (its Content-Security-Policy, ${String(error.details['directive'] ?? 'connect-src')}) does not allow connections to ${String(error.details['origin'] ?? 'that server')}. Whoever serves the app must allow that origin (set HOUKAI_SYNC_ORIGINS for this app’s server), or serve CouchDB under this app’s own address.`,
            ...base,
          };
        }
        return { title: 'Server unreachable', message: 'The sync server cannot be reached from here: check the address, your connection, and that this app’s host allows it (see “What is sent”). Live sync keeps retrying.', ...base };
      case 'SYNC_KEY': {
        const reason = error.details['reason'];
        const messages: Record<string, string> = {
          encrypted: 'This database is end-to-end encrypted. Enter its passphrase to sync.',
          'wrong-key': 'That passphrase does not open this database. A lost passphrase cannot be recovered: the server holds only ciphertext.',
          changed: 'The passphrase of this database was changed on another device. Enter the new one.',
          'plain-memories': 'This database already holds unencrypted memories. Encrypted sync needs a new, empty database.',
        };
        return { title: 'Passphrase needed', message: messages[String(reason)] ?? error.message, ...base };
      }
      case 'STORAGE_FAILURE':
        return { title: 'Storage failed', message: 'The browser’s storage failed. Nothing was changed; try again.', ...base };
      default:
        return { title: fallbackTitle, message: error.message, ...base };
    }
  }
  return { title: fallbackTitle, message: error instanceof Error ? error.message : String(error) };
}

export function describe(error: unknown): string {
  const p = problemOf(error);
  return p.code ? `${p.message} (${p.code})` : p.message;
}
