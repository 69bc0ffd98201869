/**
 * The extension popup's sync form (src/extension/sync-form.ts): which host it asks Chrome for,
 * what it refuses before asking, and a refusal at Chrome's prompt as a typed error. The whole
 * flow against a server runs in e2e/extension.spec.ts; headless Chromium cannot answer the
 * prompt, so the refusal is checked here with Chrome's permission call stubbed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';

const asked: string[][] = [];
let answer = true;
let form: typeof import('../src/extension/sync-form.ts');

beforeAll(async () => {
  (globalThis as unknown as { chrome: unknown }).chrome = {
    permissions: {
      request: async ({ origins }: { origins: string[] }) => (asked.push(origins), answer),
      contains: async () => false,
    },
  };
  form = await import('../src/extension/sync-form.ts');
});

describe('the extension asks for one sync host at run time', () => {
  it('asks for the server of the address only, any port, https or loopback http', () => {
    expect(form.hostPattern('https://couch.example.com:6984/memories')).toBe('https://couch.example.com/*');
    expect(form.hostPattern('http://127.0.0.1:5984/db')).toBe('http://127.0.0.1/*');
    expect(form.hostPattern('http://localhost:5984/db')).toBe('http://localhost/*');
  });

  it('refuses plain http over a network and what is not a URL, before asking Chrome', async () => {
    for (const bad of ['http://couch.example.com/db', 'ftp://example.com/db', 'couch.example.com/db', '']) {
      const error = await form.grantHost(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MemoryError);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'url' } });
    }
    expect(asked).toEqual([]);
  });

  it('a refusal at the prompt is PERMISSION_DENIED; a grant lets the round run', async () => {
    answer = false;
    await expect(form.grantHost('https://couch.example.com/db')).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: { origin: 'https://couch.example.com/*' } });
    answer = true;
    await expect(form.grantHost('https://couch.example.com/db')).resolves.toBeUndefined();
    expect(asked).toEqual([['https://couch.example.com/*'], ['https://couch.example.com/*']]);
  });

  it('the form makes the sync options: auth with a user name, encryption with a passphrase, never remembered', () => {
    expect(form.syncOptionsOf({ url: ' https://c.example/db ', username: '', password: '', passphrase: '' })).toEqual({ url: 'https://c.example/db' });
    expect(form.syncOptionsOf({ url: 'https://c.example/db', username: 'alice', password: 'pw', passphrase: 'a long passphrase' })).toEqual({
      url: 'https://c.example/db',
      auth: { username: 'alice', password: 'pw' },
      encryption: { passphrase: 'a long passphrase', remember: false },
    });
  });
});
