/**
 * A loopback HTTP proxy in front of a test server that drops chosen requests (the socket is
 * destroyed, as when the server dies mid-request): a fault at one exact point of a replication,
 * where killing the server hits it only by chance.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FlakyProxy {
  url: string;
  /** Requests dropped so far. */
  dropped: number;
  close(): Promise<void>;
}

export interface ProxyOptions {
  /**
   * Answer as a CouchDB without CORS does: no `access-control-*` headers, preflights refused.
   * A browser page cannot reach it; an extension holding the host permission can.
   */
  noCors?: boolean;
}

/** Forwards to `target` (http://host:port); a request for which `drop` says true is cut off. */
export async function startFlakyProxy(target: string, drop: (req: IncomingMessage) => boolean, options: ProxyOptions = {}): Promise<FlakyProxy> {
  const to = new URL(target);
  const proxy: FlakyProxy = { url: '', dropped: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    if (drop(req)) {
      proxy.dropped += 1;
      req.socket.destroy();
      return;
    }
    if (options.noCors && req.method === 'OPTIONS') {
      res.writeHead(405).end();
      return;
    }
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const headers = options.noCors ? Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !name.startsWith('access-control-'))) : answer.headers;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return proxy;
}
