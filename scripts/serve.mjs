#!/usr/bin/env node
/**
 * A small static server for the built app, with the response headers of scripts/hosting/
 * headers.mjs (CSP with frame-ancestors, cross-origin isolation, no framing, caching). It is what
 * `npm start` runs (scripts/start.mjs) and what the browser tests are served by, so the tests
 * see exactly the headers a person's browser does.
 *
 *   node scripts/serve.mjs [--dir dist/app] [--port 4173] [--host 127.0.0.1]
 *
 * GET and HEAD only; `/` and paths without a file extension answer with index.html (the app
 * routes by hash; a deep link still opens it); dotfiles and paths outside the folder are 404;
 * ETag revalidation (304). `--port 0` picks a free port. Prints the URL it serves.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { headersFor as tableHeaders } from './hosting/headers.mjs';

/** The table's headers for a path, names in lower case (so they merge with the server's own). */
function headersFor(pathname) {
  return Object.fromEntries(Object.entries(tableHeaders(pathname)).map(([name, value]) => [name.toLowerCase(), value]));
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

function fileAt(dir, pathname) {
  if (pathname.split('/').some((segment) => segment.startsWith('.'))) return null; // dotfiles, `..`
  const path = resolve(dir, `.${pathname.endsWith('/') ? `${pathname}index.html` : pathname}`);
  if (path !== dir && !path.startsWith(dir + sep)) return null;
  try {
    const stat = statSync(path);
    return stat.isFile() ? { path, stat } : null;
  } catch {
    return null;
  }
}

/**
 * A request handler serving the built app in `dir`. `override(pathname)` may answer a path
 * with other bytes (tests use it to deploy a "second build").
 */
export function appHandler(dir, { override } = {}) {
  const root = resolve(dir);
  return (req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('bad request');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8', ...headersFor(pathname) }).end('method not allowed');
      return;
    }
    let served = pathname;
    let file = fileAt(root, pathname);
    // Navigations to app paths get the app page.
    if (!file && !extname(pathname)) {
      served = '/index.html';
      file = fileAt(root, served);
    }
    const replaced = override?.(served === '/' ? '/index.html' : served);
    if (!file && !replaced) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...headersFor(pathname) }).end('not found');
      return;
    }
    const type = TYPES[extname(file?.path ?? served) || '.html'] ?? 'application/octet-stream';
    // An app path answered with the app page gets the page's headers (its CSP included).
    const headers = { 'content-type': type, 'cache-control': 'no-cache', ...headersFor(served) };
    if (replaced) {
      res.writeHead(200, { ...headers, 'content-length': replaced.length });
      res.end(req.method === 'HEAD' ? undefined : replaced);
      return;
    }
    const etag = `W/"${file.stat.size.toString(16)}-${Math.floor(file.stat.mtimeMs).toString(16)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { ...headers, etag }).end();
      return;
    }
    res.writeHead(200, { ...headers, etag, 'last-modified': file.stat.mtime.toUTCString(), 'content-length': file.stat.size });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file.path)
      .on('error', () => res.destroy())
      .pipe(res);
  };
}

/** Starts serving `dir`; resolves with the server and its URL once it listens. */
export function serve({ dir, port = 4173, host = '127.0.0.1', override } = {}) {
  const server = createServer(appHandler(dir, { override }));
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const shown = host.includes(':') ? `[${host}]` : host;
      resolvePromise({ server, url: `http://${shown}:${address.port}/` });
    });
  });
}

/** `--name value` / `--name=value` options, then environment variables, then defaults. */
export function cliOptions(argv, defaults) {
  const options = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`unexpected argument ${argv[i]}`);
    const [, name, inline] = match;
    if (!(name in defaults)) throw new Error(`unknown option --${name}`);
    options[name] = inline ?? argv[++i];
  }
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not ${options.port}`);
  return { ...options, port };
}

/** Serves until interrupted; a port in use is a clear error, never a silent switch to another origin. */
export async function serveUntilStopped({ dir, port, host }, label) {
  try {
    const { server, url } = await serve({ dir, port, host });
    console.log(`${label} ${url}`);
    const stop = () => server.close(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return server;
  } catch (error) {
    if (error && error.code === 'EADDRINUSE') {
      console.error(
        `serve: port ${port} on ${host} is in use. Stop what runs there, or choose another port with PORT=… ` +
          '(the app keeps its memories per origin: another port starts with other stores).',
      );
    } else {
      console.error(`serve: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let options;
  try {
    options = cliOptions(process.argv.slice(2), { dir: 'dist/app', port: process.env.PORT ?? '4173', host: process.env.HOST ?? '127.0.0.1' });
  } catch (error) {
    console.error(`serve: ${error.message}`);
    process.exit(2);
  }
  const dir = resolve(options.dir);
  if (!fileAt(dir, '/index.html')) {
    console.error(`serve: ${join(options.dir, 'index.html')} is missing; build the app first`);
    process.exit(1);
  }
  await serveUntilStopped({ ...options, dir }, `serving ${options.dir} at`);
}
