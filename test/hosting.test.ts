/**
 * The app's server and its one header table (issue 15 finding 1, issue 16 item 12): the
 * generated hosting configs match the table, the table never sets one header twice for a path,
 * the server sends the table's headers and serves nothing outside the build, and "built when
 * stale" rebuilds on a content change only.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputsFingerprint, outDirFor, staleness, writeStamp } from '../scripts/build-inputs.mjs';
import { CSP, RULES, cspValue, headersFor, matches, renderHeadersFile, renderNginx, syncOrigins } from '../scripts/hosting/headers.mjs';
import { serve } from '../scripts/serve.mjs';

const root = join(import.meta.dirname, '..');

describe('header table', () => {
  it('sync servers the host allows (HOUKAI_SYNC_ORIGINS) join the worker’s connect-src only; anything but an origin is refused', () => {
    expect(syncOrigins('')).toEqual([]);
    expect(syncOrigins(' https://couch.example.com  http://127.0.0.1:5984/ ')).toEqual(['https://couch.example.com', 'http://127.0.0.1:5984']);
    expect(() => syncOrigins('https://couch.example.com/db')).toThrow(/no path/);
    expect(() => syncOrigins('javascript:alert(1)')).toThrow(/origin/);
    expect(() => syncOrigins("'unsafe-inline'")).toThrow(/not an origin/);
    // Without the variable, nothing is added anywhere.
    expect(cspValue({ for: 'worker' })).toMatch(/connect-src 'self';/);
    expect(cspValue()).toMatch(/connect-src 'self';/);
  });

  it('docs/hosting/_headers and nginx.conf are generated from the table (npm run hosting)', () => {
    expect(readFileSync(join(root, 'docs/hosting/_headers'), 'utf8')).toBe(renderHeadersFile());
    expect(readFileSync(join(root, 'docs/hosting/nginx.conf'), 'utf8')).toBe(renderNginx());
  });

  it('no two rules that match one path set the same header (hosts would join them; two CSPs both apply)', () => {
    const samples = RULES.map((rule) => rule.path.replaceAll('*', 'x/y.js'));
    for (const path of samples) {
      const names = RULES.filter((rule) => matches(rule.path, path)).flatMap((rule) => Object.keys(rule.headers).map((name) => name.toLowerCase()));
      expect(new Set(names).size, path).toBe(names.length);
    }
  });

  it('the page policy: framing refused, no inline style, no eval; the worker’s is the same without framing; the meta copy drops frame-ancestors', () => {
    const page = headersFor('/')['Content-Security-Policy']!;
    expect(page).toContain("frame-ancestors 'none'");
    expect(page).not.toMatch(/unsafe-inline|'unsafe-eval'/);
    expect(headersFor('/')['X-Frame-Options']).toBe('DENY');
    expect(headersFor('/')['Cross-Origin-Opener-Policy']).toBe('same-origin');
    expect(headersFor('/assets/x.js')['Cross-Origin-Embedder-Policy']).toBe('require-corp');
    const worker = headersFor('/workers/memory.worker-abc.js')['Content-Security-Policy']!;
    expect(worker).toBe(cspValue({ for: 'worker' }));
    expect(worker).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(worker).not.toMatch(/'unsafe-eval'|blob:.*;.*worker-src|script-src[^;]*blob:/);
    expect(worker).not.toContain('frame-ancestors');
    expect(cspValue({ meta: true })).not.toContain('frame-ancestors');
    expect(Object.keys(CSP)).toContain('style-src');
    expect(CSP['style-src']).toEqual(["'self'"]);
  });
});

function get(url: string, init: { method?: string; path?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: init.path ?? '/', method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve.mjs', () => {
  let dir: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'houkai-serve-'));
    mkdirSync(join(dir, 'site/assets'), { recursive: true });
    mkdirSync(join(dir, 'site/workers'), { recursive: true });
    writeFileSync(join(dir, 'site/index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(dir, 'site/sw.js'), 'self.x = 1;');
    writeFileSync(join(dir, 'site/assets/main-1.js'), 'export {};');
    writeFileSync(join(dir, 'site/workers/memory.worker-1.js'), 'export {};');
    writeFileSync(join(dir, 'site/.build-stamp.json'), '{}');
    writeFileSync(join(dir, 'secret.txt'), 'outside the build');
    ({ server, url } = await serve({ dir: join(dir, 'site'), port: 0 }));
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the table’s headers for each path, and the page’s own for an app path', async () => {
    for (const [path, ruleFor, type] of [
      ['/', '/', 'text/html'],
      ['/index.html', '/index.html', 'text/html'],
      ['/browse/some-id', '/index.html', 'text/html'],
      ['/sw.js', '/sw.js', 'text/javascript'],
      ['/assets/main-1.js', '/assets/main-1.js', 'text/javascript'],
      ['/workers/memory.worker-1.js', '/workers/memory.worker-1.js', 'text/javascript'],
    ] as const) {
      const response = await get(url, { path });
      expect(response.status, path).toBe(200);
      expect(response.headers['content-type'], path).toContain(type);
      for (const [name, value] of Object.entries(headersFor(ruleFor))) expect(response.headers[name.toLowerCase()], `${name} on ${path}`).toBe(value);
    }
    expect((await get(url, { path: '/browse/some-id' })).body).toContain('<title>app</title>');
  });

  it('serves nothing outside the build, no dotfile, no unknown file; GET and HEAD only', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/.build-stamp.json', '/assets/missing.js']) {
      const response = await get(url, { path });
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain('outside the build');
      expect(response.headers['x-frame-options']).toBe('DENY');
    }
    expect((await get(url, { path: '/', method: 'POST' })).status).toBe(405);
    const head = await get(url, { path: '/index.html', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('revalidates with an ETag', async () => {
    const first = await get(url, { path: '/sw.js' });
    const again = await get(url, { path: '/sw.js', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
  });

  it('refuses a port in use instead of moving to another origin', async () => {
    const port = Number(new URL(url).port);
    await expect(serve({ dir: join(dir, 'site'), port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

describe('built when stale', () => {
  it('rebuilds for a missing build, another mode, or a content change — not for a rewrite with the same content', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'houkai-stale-'));
    try {
      mkdirSync(join(tmp, 'src'), { recursive: true });
      writeFileSync(join(tmp, 'src/a.ts'), 'export const a = 1;');
      writeFileSync(join(tmp, 'index.html'), '<!doctype html>');
      expect(staleness('production', tmp)?.reason).toBe('no build yet');
      const out = join(tmp, outDirFor('production'));
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, 'index.html'), 'built');
      writeFileSync(join(out, 'sw.js'), 'built');
      writeStamp(out, { mode: 'production', ...inputsFingerprint('production', tmp), builtAt: new Date().toISOString() });
      expect(staleness('production', tmp)).toBeNull();
      writeFileSync(join(tmp, 'src/a.ts'), 'export const a = 1;'); // same bytes, new mtime
      expect(staleness('production', tmp)).toBeNull();
      writeFileSync(join(tmp, 'src/a.ts'), 'export const a = 2;');
      expect(staleness('production', tmp)?.reason).toBe('sources changed since the last build');
      writeFileSync(join(tmp, 'src/a.ts'), 'export const a = 1;');
      writeFileSync(join(tmp, 'src/b.ts'), 'export const b = 1;');
      expect(staleness('production', tmp)?.reason).toBe('sources changed since the last build');
      rmSync(join(tmp, 'src/b.ts'));
      expect(staleness('production', tmp)).toBeNull();
      writeStamp(out, { mode: 'e2e', ...inputsFingerprint('production', tmp), builtAt: new Date().toISOString() });
      expect(staleness('production', tmp)?.reason).toBe('the last build was for e2e');
      expect(outDirFor('e2e')).toBe('dist/e2e');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
