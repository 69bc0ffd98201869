// Two loopback servers for the no-off-origin test (e2e/no-off-origin.spec.ts), the first also
// serving the consumer builds (e2e/consumers.spec.ts):
//
// - a static server for the built app (dist/app) with the headers the app is meant to be served
//   with, which can answer 404 for the transformers.js models (a host that lacks them);
// - a recording HTTP proxy: Chromium launched with --proxy-server sends every request that is
//   not to the loopback through it (from pages, service workers, shared and dedicated workers
//   alike), so anything it records is an off-origin request. It forwards nothing.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { ISOLATION as ISOLATION_HEADERS } from '../scripts/hosting/headers.mjs';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface Running {
  url: string;
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/**
 * Serves `root`; paths matching `missing` answer 404, as a static host without those files would.
 * `headers` replaces the app's cross-origin isolation headers sent by default.
 */
export async function serveStatic(root: string, options: { missing?: RegExp; headers?: Record<string, string> } = {}): Promise<Running & { requests: string[] }> {
  const headers = options.headers ?? ISOLATION_HEADERS;
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    const info = file.startsWith(root) && !options.missing?.test(path) ? await stat(file).catch(() => null) : null;
    if (!info?.isFile()) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': info.size });
    createReadStream(file).pipe(res);
  });
  const url = await listen(server);
  return { url, requests, close: closer(server) };
}

/** A proxy that records what reaches it (absolute URLs, or host:port of CONNECT tunnels) and refuses it. */
export async function recordingProxy(): Promise<Running & { seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(502, { 'content-type': 'text/plain' }).end('off-origin request refused by the test proxy');
  });
  server.on('connect', (req, socket) => {
    seen.push(`CONNECT ${req.url ?? ''}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  const url = await listen(server);
  return { url, seen, close: closer(server) };
}
