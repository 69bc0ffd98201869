/**
 * Connections handed to a dedicated memory worker by the document that owns it, one
 * `MessagePort` per client, each with a scope the client cannot widen. This is how an MV3
 * extension's offscreen document serves the popup and the content scripts from one worker: it
 * decides each client's scope from who is on the other end of the extension port, opens a
 * connection with that scope, and bridges the two ports.
 */
import * as Comlink from 'comlink';
import { findPorts } from '../transport/json-codec.ts';
import { MemoryError } from '../core/errors.ts';
import { installErrorTransfer } from '../transport/error-transfer.ts';
import { createHost, type ConnectionScope, type StoreRegistry } from './host.ts';

/** Sent to the worker with one transferred port: serve a host on it. */
export interface ConnectMessage {
  houkai: 'connect';
  scope?: ConnectionScope;
  /** The actor the connection's writes are journaled as, whatever its client claims. */
  actor?: string;
}

/** Sent on a connection's port when its client went away: release what it held. */
export interface DisposeMessage {
  houkai: 'dispose';
}

function isConnect(data: unknown): data is ConnectMessage {
  return data !== null && typeof data === 'object' && (data as { houkai?: unknown }).houkai === 'connect';
}

function isDispose(data: unknown): data is DisposeMessage {
  return data !== null && typeof data === 'object' && (data as { houkai?: unknown }).houkai === 'dispose';
}

interface MessageTarget {
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/**
 * Worker side: every connect message's port gets its own host over `registry`, with the scope
 * the message names imposed on each store it opens. Comlink's own listener ignores these
 * messages (they carry no comlink `type`).
 */
export function acceptConnections(target: MessageTarget, registry: StoreRegistry): void {
  target.addEventListener('message', (event) => {
    const port = event.ports?.[0];
    if (!isConnect(event.data) || !port) return;
    const { scope, actor } = event.data;
    const host = createHost(registry, { ...(scope ? { scope } : {}), ...(typeof actor === 'string' ? { actor } : {}) });
    Comlink.expose(host, port);
    port.addEventListener('message', (message: MessageEvent) => {
      if (!isDispose(message.data)) return;
      void host.dispose().finally(() => port.close());
    });
  });
}

export interface Connection {
  /** The client's end: a comlink endpoint speaking the host protocol. */
  readonly port: MessagePort;
  /** Tells the worker to release this connection's stores and abort its calls; the worker then closes the channel. */
  close(): void;
}

/** Owner side: opens a connection to `worker` whose stores all get `scope` (and, when given, are written as `actor`). */
export function openConnection(worker: Pick<Worker, 'postMessage'>, scope?: ConnectionScope, actor?: string): Connection {
  const { port1, port2 } = new MessageChannel();
  const message: ConnectMessage = { houkai: 'connect', ...(scope ? { scope } : {}), ...(actor ? { actor } : {}) };
  worker.postMessage(message, [port2]);
  let closed = false;
  return {
    port: port1,
    close() {
      if (closed) return;
      closed = true;
      const dispose: DisposeMessage = { houkai: 'dispose' };
      port1.onmessage = null;
      // The worker closes the channel once the host is disposed (closing here could drop the message).
      port1.postMessage(dispose);
    },
  };
}

/** Forwards messages both ways between a comlink endpoint (e.g. an extension port adapter) and a MessagePort. */
export function bridgeEndpoint(endpoint: Comlink.Endpoint, port: MessagePort): void {
  endpoint.addEventListener('message', ((event: MessageEvent) => port.postMessage(event.data, findPorts(event.data))) as EventListener);
  port.onmessage = (event: MessageEvent) => endpoint.postMessage(event.data, findPorts(event.data));
}

/** Comlink's request types; its answers are typed RAW or HANDLER. */
const REQUEST_TYPES: ReadonlySet<unknown> = new Set(['GET', 'SET', 'APPLY', 'CONSTRUCT', 'ENDPOINT', 'RELEASE']);

/**
 * Lets through only calls of the named top-level methods (comlink `APPLY` with a one-element
 * path) and the final `RELEASE`. Comlink also answers `GET`, `SET`, `CONSTRUCT` and `ENDPOINT` on
 * any property path, which a compromised client (a content script runs in a web page's renderer)
 * could use to read or overwrite objects of the host's realm (`SET ['dispatch', '__proto__', …]`);
 * those are answered with PERMISSION_DENIED and never reach the exposed object.
 */
export function allowCalls(endpoint: Comlink.Endpoint, methods: readonly string[]): Comlink.Endpoint {
  installErrorTransfer();
  const allowed = new Set(methods);
  const wrapped = new Map<EventListenerOrEventListenerObject, EventListener>();
  const refuse = (id: unknown, what: string): void => {
    const error = new MemoryError('PERMISSION_DENIED', `Only calls of ${[...allowed].join(', ')} are allowed on this connection — got ${what}`);
    const [value] = Comlink.transferHandlers.get('throw')!.serialize({ value: error });
    endpoint.postMessage({ id, type: 'HANDLER', name: 'throw', value });
  };
  return {
    postMessage: (message: unknown, transfer?: Transferable[]) => endpoint.postMessage(message, transfer),
    addEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      const guard: EventListener = (event) => {
        const data = (event as MessageEvent).data as { id?: unknown; type?: unknown; path?: unknown } | null;
        if (data && typeof data === 'object' && REQUEST_TYPES.has(data.type)) {
          const path = Array.isArray(data.path) ? data.path : [];
          const ok = (data.type === 'APPLY' && path.length === 1 && allowed.has(String(path[0]))) || (data.type === 'RELEASE' && path.length === 0);
          if (!ok) {
            refuse(data.id, `${String(data.type)} ${JSON.stringify(path)}`);
            return;
          }
        }
        if (typeof listener === 'function') listener(event);
        else listener.handleEvent(event);
      };
      wrapped.set(listener, guard);
      endpoint.addEventListener(type, guard);
    },
    removeEventListener(type: string, listener: EventListenerOrEventListenerObject) {
      const guard = wrapped.get(listener);
      if (guard) endpoint.removeEventListener(type, guard);
      wrapped.delete(listener);
    },
  };
}
