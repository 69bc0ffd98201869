/**
 * A comlink endpoint over a browser extension's `chrome.runtime.Port`.
 *
 * Extension ports carry JSON only: a `Float32Array` would arrive as `{"0": …}`, a `Blob` or an
 * `Error` as `{}`, `undefined` inside an array as `null`, and a `MessagePort` (how comlink passes
 * callbacks such as `onProgress`) not at all. This adapter encodes every message into JSON-safe
 * data that decodes back to what structured clone would have delivered: typed arrays and
 * ArrayBuffers (bit-exact, base64), Blobs and Files, Dates, Maps, Sets, RegExps, BigInts,
 * NaN/±Infinity/-0, `undefined`, Errors (a `MemoryError` keeps its code and details, and is a
 * `MemoryError` again on the other side). Each `MessagePort` becomes a virtual channel multiplexed
 * over the same extension port, so comlink proxies (progress callbacks) work across it.
 *
 * When the extension port disconnects (the offscreen document closed, the popup went away),
 * every call still waiting for an answer fails with `MemoryError('CLOSED')` instead of hanging.
 *
 * No `@types/chrome` needed: the port is typed structurally ({@link RuntimePort}).
 *
 * @example
 * ```ts
 * import { connectMemory, portEndpoint } from 'houkai-web';
 * const port = chrome.runtime.connect({ name: 'houkai:memory' });
 * const memory = await connectMemory({ endpoint: portEndpoint(port), name: 'notes' });
 * ```
 */
import * as Comlink from 'comlink';
import { MemoryError } from '../core/errors.ts';
import { installErrorTransfer } from './error-transfer.ts';
import { bytesToBase64, decodeValue, encodeValue, findPorts, type DecodeContext, type EncodeContext, type Json } from './json-codec.ts';

/** A `chrome.runtime.Port` event (`onMessage`, `onDisconnect`). */
export interface RuntimePortEvent<F> {
  addListener(listener: F): void;
  removeListener(listener: F): void;
}

/** The part of `chrome.runtime.Port` (or `browser.runtime.Port`) the adapter uses. */
export interface RuntimePort {
  readonly name: string;
  postMessage(message: unknown): void;
  disconnect(): void;
  readonly onMessage: RuntimePortEvent<(message: unknown) => void>;
  readonly onDisconnect: RuntimePortEvent<() => void>;
}

/** A comlink endpoint bound to one extension port. */
export interface PortEndpoint extends Comlink.Endpoint {
  readonly port: RuntimePort;
  /** True once the port disconnected or {@link PortEndpoint.close} was called. */
  readonly closed: boolean;
  /** Disconnects the port; pending calls fail with CLOSED. Idempotent. */
  close(): void;
  /** Runs `listener` once when the port goes away (either side); at once if it already has. */
  onClose(listener: () => void): void;
  /** Virtual channels (comlink proxies in flight) open on this port, for diagnostics. */
  readonly channels: number;
}


/** What travels on the extension port: a message on the main channel (`c` absent) or on a virtual channel. */
interface Envelope {
  hk: 1;
  c?: string;
  d: Json;
}

function isEnvelope(value: unknown): value is Envelope {
  return value !== null && typeof value === 'object' && (value as { hk?: unknown }).hk === 1 && 'd' in value;
}

/** A comlink message: a request (`type` GET, SET, APPLY, CONSTRUCT, ENDPOINT or RELEASE) or a response (`type` RAW or HANDLER). */
interface Wire {
  id?: unknown;
  type?: unknown;
}

const REQUEST_TYPES: ReadonlySet<unknown> = new Set(['GET', 'SET', 'APPLY', 'CONSTRUCT', 'ENDPOINT', 'RELEASE']);

/** The id of a comlink request, or undefined for anything else. */
function requestId(message: unknown): unknown {
  const wire = message as Wire | null;
  return wire !== null && typeof wire === 'object' && wire.id !== undefined && REQUEST_TYPES.has(wire.type) ? wire.id : undefined;
}

/** The id a comlink response answers, or undefined for anything else. */
function responseId(message: unknown): unknown {
  const wire = message as Wire | null;
  return wire !== null && typeof wire === 'object' && wire.id !== undefined && !REQUEST_TYPES.has(wire.type) ? wire.id : undefined;
}

const isRelease = (message: unknown): boolean => (message as Wire | null)?.type === 'RELEASE';

/** The answer comlink expects for a request that can no longer be served. */
function closedResponse(id: unknown): Record<string, unknown> {
  installErrorTransfer();
  const error = new MemoryError('CLOSED', 'The extension port disconnected before the call was answered');
  const handler = Comlink.transferHandlers.get('throw')!;
  const [value] = handler.serialize({ value: error });
  return { id, type: 'HANDLER', name: 'throw', value };
}

interface Channel {
  /** Where decoded messages for this channel are delivered. */
  deliver(data: unknown): void;
  /** Requests sent out on this channel and not answered yet. */
  pending: Set<unknown>;
  /** Ids of RELEASE requests seen on this channel; their answer ends the channel. */
  releasing: Set<unknown>;
  port?: MessagePort;
}

let nextPrefix = 0;

/**
 * Wraps an extension port as a comlink endpoint: use it with `connectMemory({ endpoint })` on the
 * client side, or `Comlink.expose(host, endpoint)` on the side that owns the memory.
 */
export function portEndpoint(port: RuntimePort): PortEndpoint {
  const listeners = new Set<EventListenerOrEventListenerObject>();
  const channels = new Map<string, Channel>();
  const closeListeners: (() => void)[] = [];
  const prefix = `${Date.now().toString(36)}.${(nextPrefix++).toString(36)}.${Math.random().toString(36).slice(2, 8)}`;
  let nextChannel = 0;
  let closed = false;
  /** Sends wait behind a message whose Blobs are still being read, so order is kept. */
  let queue: Promise<void> | null = null;

  function dispatch(data: unknown): void {
    const event = { data } as MessageEvent;
    for (const listener of [...listeners]) {
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  }

  const main: Channel = { deliver: dispatch, pending: new Set(), releasing: new Set() };

  function trackOutgoing(channel: Channel, message: unknown): void {
    const id = requestId(message);
    if (id === undefined) return;
    channel.pending.add(id);
    if (isRelease(message)) channel.releasing.add(id);
  }

  /** Notes an incoming message; true when it answers a RELEASE (the channel is done after it). */
  function trackIncoming(channel: Channel, message: unknown): boolean {
    const answered = responseId(message);
    if (answered !== undefined) {
      channel.pending.delete(answered);
      return channel.releasing.delete(answered);
    }
    const asked = requestId(message);
    if (asked !== undefined && isRelease(message)) channel.releasing.add(asked);
    return false;
  }

  function endChannel(id: string): void {
    const channel = channels.get(id);
    if (!channel) return;
    channels.delete(id);
    if (channel.port) {
      channel.port.onmessage = null;
      channel.port.close();
    }
  }

  function openChannel(id: string, local: MessagePort): void {
    const channel: Channel = {
      deliver: (data) => local.postMessage(data, findPorts(data)),
      pending: new Set(),
      releasing: new Set(),
      port: local,
    };
    channels.set(id, channel);
    local.onmessage = (event: MessageEvent) => {
      // An answer to a RELEASE that came in: the proxy on the other side is gone after it.
      const answered = responseId(event.data);
      const ends = answered !== undefined && channel.releasing.delete(answered);
      trackOutgoing(channel, event.data);
      send(event.data, id);
      if (ends) endChannel(id);
    };
  }

  /** A MessagePort found in an outgoing message becomes a channel with a fresh id. */
  function encodePort(local: MessagePort): string {
    const id = `${prefix}.${nextChannel++}`;
    openChannel(id, local);
    return id;
  }

  /** A channel id in an incoming message becomes a MessagePort bridged to that channel. */
  const decodeContext: DecodeContext = {
    port(id) {
      const { port1, port2 } = new MessageChannel();
      endChannel(id);
      openChannel(id, port1);
      return port2;
    },
  };

  function send(message: unknown, channel?: string): void {
    if (closed) return;
    const ctx: EncodeContext = { port: encodePort, blobs: [] };
    const data = encodeValue(message, ctx, new Set());
    const envelope: Envelope = { hk: 1, ...(channel === undefined ? {} : { c: channel }), d: data };
    const post = (): void => {
      if (!closed) port.postMessage(envelope);
    };
    if (ctx.blobs.length === 0 && queue === null) {
      post();
      return;
    }
    const ready = (queue ?? Promise.resolve()).then(async () => {
      for (const { blob, slot } of ctx.blobs) slot.b = bytesToBase64(new Uint8Array(await blob.arrayBuffer()));
      post();
    });
    const tail: Promise<void> = ready.catch(() => undefined).finally(() => {
      if (queue === tail) queue = null;
    });
    queue = tail;
  }

  function onMessage(message: unknown): void {
    if (!isEnvelope(message)) return;
    const channel = message.c === undefined ? main : channels.get(message.c);
    if (!channel) return;
    const data = decodeValue(message.d, decodeContext);
    const ends = trackIncoming(channel, data);
    channel.deliver(data);
    if (ends && message.c !== undefined) endChannel(message.c);
  }

  function shutDown(): void {
    if (closed) return;
    closed = true;
    port.onMessage.removeListener(onMessage);
    port.onDisconnect.removeListener(shutDown);
    // Everything still waiting for an answer gets CLOSED, on every channel.
    for (const [id, channel] of [...channels]) {
      for (const pending of channel.pending) channel.deliver(closedResponse(pending));
      endChannel(id);
    }
    for (const pending of main.pending) dispatch(closedResponse(pending));
    main.pending.clear();
    for (const listener of closeListeners.splice(0)) listener();
  }

  port.onMessage.addListener(onMessage);
  port.onDisconnect.addListener(shutDown);

  return {
    port,
    get closed() {
      return closed;
    },
    get channels() {
      return channels.size;
    },
    postMessage(message: unknown) {
      if (closed) {
        // A request after the end gets CLOSED; anything else (a late answer) has nowhere to go.
        const id = requestId(message);
        if (id !== undefined) queueMicrotask(() => dispatch(closedResponse(id)));
        return;
      }
      trackOutgoing(main, message);
      send(message);
    },
    addEventListener(_type: string, listener: EventListenerOrEventListenerObject) {
      listeners.add(listener);
    },
    removeEventListener(_type: string, listener: EventListenerOrEventListenerObject) {
      listeners.delete(listener);
    },
    close() {
      if (closed) return;
      try {
        port.disconnect();
      } finally {
        shutDown();
      }
    },
    onClose(listener: () => void) {
      if (closed) listener();
      else closeListeners.push(listener);
    },
  };
}
