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
import { ERROR_CODES, MemoryError, type ErrorCode } from '../core/errors.ts';
import { installErrorTransfer } from '../rpc/transfer.ts';

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

// ---------------------------------------------------------------------------------------------
// Codec
// ---------------------------------------------------------------------------------------------

/** JSON data as the port carries it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The key that marks an encoded value; a plain object that has it itself is escaped. */
const TAG = '$hk';

const VIEW_TYPES = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  DataView,
} as const;
type ViewName = keyof typeof VIEW_TYPES;

interface EncodeContext {
  /** Registers a MessagePort found in the message and returns its channel id. */
  port(port: MessagePort): string;
  /** Blobs whose bytes must be read before the message can go; each fills its slot. */
  blobs: { blob: Blob; slot: Record<string, Json> }[];
}

interface DecodeContext {
  /** Returns the local end of the channel named by `id` (created on first sight). */
  port(id: string): MessagePort;
}

function cloneError(message: string): DOMException {
  return new DOMException(message, 'DataCloneError');
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isMessagePort(value: unknown): value is MessagePort {
  return typeof MessagePort !== 'undefined' && value instanceof MessagePort;
}

function encodeNumber(value: number): Json {
  if (Number.isNaN(value)) return { [TAG]: 'num', v: 'NaN' };
  if (value === Infinity) return { [TAG]: 'num', v: 'Infinity' };
  if (value === -Infinity) return { [TAG]: 'num', v: '-Infinity' };
  if (Object.is(value, -0)) return { [TAG]: 'num', v: '-0' };
  return value;
}

function encodeError(error: Error, ctx: EncodeContext, seen: Set<object>): Json {
  const out: Record<string, Json> = { [TAG]: 'err', name: error.name, message: error.message };
  if (error.stack) out.stack = error.stack;
  if (error instanceof MemoryError) {
    out.code = error.code;
    out.details = encodeValue(error.details, ctx, seen);
  }
  return out;
}

/** Encodes `value` as JSON-safe data (what `structuredClone` would keep). */
function encodeValue(value: unknown, ctx: EncodeContext, seen: Set<object>): Json {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return encodeNumber(value);
    case 'undefined':
      return { [TAG]: 'undef' };
    case 'bigint':
      return { [TAG]: 'bigint', v: value.toString() };
    case 'function':
    case 'symbol':
      throw cloneError(`A ${typeof value} could not be cloned`);
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) throw cloneError('A circular structure could not be sent over an extension port');
  if (isMessagePort(object)) return { [TAG]: 'port', id: ctx.port(object) };
  if (object instanceof ArrayBuffer) return { [TAG]: 'ab', b: bytesToBase64(new Uint8Array(object)) };
  if (ArrayBuffer.isView(object)) {
    const name = object.constructor.name as ViewName;
    if (!Object.hasOwn(VIEW_TYPES, name)) throw cloneError(`A ${name} could not be cloned`);
    return { [TAG]: 'view', t: name, b: bytesToBase64(new Uint8Array(object.buffer, object.byteOffset, object.byteLength)) };
  }
  if (object instanceof Date) return { [TAG]: 'date', v: encodeNumber(object.getTime()) };
  if (object instanceof RegExp) return { [TAG]: 're', s: object.source, f: object.flags };
  if (typeof Blob !== 'undefined' && object instanceof Blob) {
    const slot: Record<string, Json> = { [TAG]: 'blob', type: object.type, b: '' };
    if (typeof File !== 'undefined' && object instanceof File) {
      slot.name = object.name;
      slot.lastModified = object.lastModified;
    }
    ctx.blobs.push({ blob: object, slot });
    return slot;
  }
  seen.add(object);
  try {
    if (object instanceof Error) return encodeError(object, ctx, seen);
    if (Array.isArray(object)) {
      const out: Json[] = [];
      for (let i = 0; i < object.length; i++) out.push(encodeValue(object[i], ctx, seen));
      return out;
    }
    if (object instanceof Map) return { [TAG]: 'map', v: [...object].map(([k, v]) => [encodeValue(k, ctx, seen), encodeValue(v, ctx, seen)]) };
    if (object instanceof Set) return { [TAG]: 'set', v: [...object].map((v) => encodeValue(v, ctx, seen)) };
    if (!isPlainObject(object) && typeof (object as { then?: unknown }).then === 'function') throw cloneError('A promise could not be cloned');
    const entries: Record<string, Json> = {};
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined) continue; // structured clone keeps it; reading it back gives undefined either way
      setOwn(entries, key, encodeValue(item, ctx, seen));
    }
    return Object.hasOwn(entries, TAG) ? { [TAG]: 'obj', v: entries } : entries;
  } finally {
    seen.delete(object);
  }
}

function decodeNumber(value: Json): number {
  if (typeof value === 'number') return value;
  switch (value) {
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    case '-0':
      return -0;
  }
  throw new MemoryError('INVALID_ARGUMENT', `Not an encoded number: ${JSON.stringify(value)}`, { field: 'message' });
}

function decodeError(data: Record<string, Json>, ctx: DecodeContext): Error {
  const message = typeof data.message === 'string' ? data.message : '';
  const stack = typeof data.stack === 'string' ? data.stack : undefined;
  if (data.name === 'MemoryError' && (ERROR_CODES as readonly unknown[]).includes(data.code)) {
    const details = decodeValue(data.details ?? {}, ctx);
    const error = new MemoryError(data.code as ErrorCode, message, details !== null && typeof details === 'object' ? (details as Record<string, unknown>) : {});
    if (stack) error.stack = `${error.stack ?? ''}\n--- across the extension port ---\n${stack}`;
    return error;
  }
  const error = new Error(message);
  if (typeof data.name === 'string') error.name = data.name;
  if (stack) error.stack = stack;
  return error;
}

function decodeTagged(data: Record<string, Json>, ctx: DecodeContext): unknown {
  switch (data[TAG]) {
    case 'undef':
      return undefined;
    case 'num':
      return decodeNumber(data.v ?? null);
    case 'bigint':
      return BigInt(String(data.v));
    case 'port':
      return ctx.port(String(data.id));
    case 'ab':
      return base64ToBytes(String(data.b)).buffer;
    case 'view': {
      const name = String(data.t) as ViewName;
      if (!Object.hasOwn(VIEW_TYPES, name)) break; // not `toString` or `constructor` of the table
      const View = VIEW_TYPES[name];
      const bytes = base64ToBytes(String(data.b));
      return name === 'DataView' ? new DataView(bytes.buffer) : new (View as Float64ArrayConstructor)(bytes.buffer);
    }
    case 'date':
      return new Date(decodeNumber(data.v ?? null));
    case 're':
      return new RegExp(String(data.s), String(data.f));
    case 'blob': {
      const bytes = base64ToBytes(String(data.b));
      const type = typeof data.type === 'string' ? data.type : '';
      if (typeof data.name === 'string' && typeof File !== 'undefined') {
        return new File([bytes], data.name, { type, ...(typeof data.lastModified === 'number' ? { lastModified: data.lastModified } : {}) });
      }
      return new Blob([bytes], { type });
    }
    case 'err':
      return decodeError(data, ctx);
    case 'map':
      return new Map((data.v as Json[]).map((pair) => [decodeValue((pair as Json[])[0] ?? null, ctx), decodeValue((pair as Json[])[1] ?? null, ctx)]));
    case 'set':
      return new Set((data.v as Json[]).map((item) => decodeValue(item, ctx)));
    case 'obj':
      return decodeEntries(data.v as Record<string, Json>, ctx);
  }
  throw new MemoryError('INVALID_ARGUMENT', `Unknown encoded value ${JSON.stringify(data[TAG])} on an extension port`, { field: 'message' });
}

/**
 * `target[key] = value` as structured clone does it (a data property of the object itself): a
 * plain assignment of the key `"__proto__"` would replace the object's prototype instead.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function decodeEntries(data: Record<string, Json>, ctx: DecodeContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(data)) setOwn(out, key, decodeValue(item, ctx));
  return out;
}

function decodeValue(data: Json, ctx: DecodeContext): unknown {
  if (data === null || typeof data !== 'object') return data;
  if (Array.isArray(data)) return data.map((item) => decodeValue(item, ctx));
  if (Object.hasOwn(data, TAG)) return decodeTagged(data, ctx);
  return decodeEntries(data, ctx);
}

/** No ports, no blobs: encodes plain values (exported for tests and for messages of your own). */
export function encodeJson(value: unknown): Json {
  const ctx: EncodeContext = {
    port: () => {
      throw cloneError('A MessagePort can only cross through portEndpoint()');
    },
    blobs: [],
  };
  const out = encodeValue(value, ctx, new Set());
  if (ctx.blobs.length) throw cloneError('A Blob can only cross through portEndpoint()');
  return out;
}

/** The inverse of {@link encodeJson}. */
export function decodeJson(data: Json): unknown {
  return decodeValue(data, {
    port: () => {
      throw cloneError('A MessagePort can only cross through portEndpoint()');
    },
  });
}

/** Every MessagePort inside `value` (for the transfer list when forwarding a decoded message). */
export function findPorts(value: unknown, found: MessagePort[] = [], seen = new Set<object>()): MessagePort[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return found;
  seen.add(value);
  if (isMessagePort(value)) {
    found.push(value);
    return found;
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return found;
  const items = value instanceof Map ? [...value.keys(), ...value.values()] : value instanceof Set ? [...value] : Object.values(value);
  for (const item of items) findPorts(item, found, seen);
  return found;
}

// ---------------------------------------------------------------------------------------------
// The endpoint
// ---------------------------------------------------------------------------------------------

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
