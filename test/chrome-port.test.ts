import { afterEach, describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import { decodeJson, encodeJson } from '../src/transport/json-codec.ts';
import { portEndpoint, type RuntimePort } from '../src/transport/port-endpoint.ts';
import { connectEndpoint, type MemoryClient } from '../src/client/connect.ts';
import { connectTools } from '../src/client/tools.ts';
import { createToolsHost } from '../src/agents/tools-host.ts';
import { MemoryError, createMemory } from '../src/local.ts';
import { createHost, StoreRegistry, type ConnectionScope } from '../src/rpc/host.ts';
import { acceptConnections, allowCalls, bridgeEndpoint, openConnection } from '../src/rpc/port-host.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import type { Embedder } from '../src/core/ports.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

type Listener<F> = Set<F>;

/**
 * Two connected fake `chrome.runtime.Port`s that behave like the real ones where it matters:
 * every message is JSON-serialised (so anything the adapter fails to encode arrives mangled),
 * delivery is asynchronous, and `disconnect()` fires `onDisconnect` on the other end only.
 */
function portPair(name = 'houkai:memory'): [RuntimePort, RuntimePort] & { sent: string[] } {
  const sent: string[] = [];
  function side(): RuntimePort & { peer?: ReturnType<typeof side>; messages: Listener<(m: unknown) => void>; disconnects: Listener<() => void>; connected: boolean } {
    const port = {
      name,
      connected: true,
      messages: new Set<(m: unknown) => void>(),
      disconnects: new Set<() => void>(),
      peer: undefined as ReturnType<typeof side> | undefined,
      postMessage(message: unknown) {
        if (!port.connected) throw new Error('Attempting to use a disconnected port object');
        const text = JSON.stringify(message);
        sent.push(text);
        const peer = port.peer!;
        setTimeout(() => {
          if (peer.connected) for (const l of [...peer.messages]) l(JSON.parse(text));
        }, 0);
      },
      disconnect() {
        if (!port.connected) return;
        port.connected = false;
        const peer = port.peer!;
        peer.connected = false;
        setTimeout(() => {
          for (const l of [...peer.disconnects]) l();
        }, 0);
      },
      onMessage: { addListener: (f: (m: unknown) => void) => void port.messages.add(f), removeListener: (f: (m: unknown) => void) => void port.messages.delete(f) },
      onDisconnect: { addListener: (f: () => void) => void port.disconnects.add(f), removeListener: (f: () => void) => void port.disconnects.delete(f) },
    };
    return port;
  }
  const a = side();
  const b = side();
  a.peer = b;
  b.peer = a;
  return Object.assign([a, b] as [RuntimePort, RuntimePort], { sent });
}

function registry(embedder: () => Embedder = () => createHashEmbedder()): StoreRegistry {
  return new StoreRegistry({
    open: (request) => createMemory({ name: request.name, embedder: embedder(), index: 'exact', snapshotDelayMs: 10 }),
  });
}

/** The memory host on one end of a fake extension port, a client endpoint on the other. */
function serve(reg: StoreRegistry, scope?: ConnectionScope): { client: ReturnType<typeof portEndpoint>; server: ReturnType<typeof portEndpoint>; sent: string[] } {
  installErrorTransfer();
  const pair = portPair();
  const server = portEndpoint(pair[0]);
  const host = createHost(reg, scope ? { scope } : {});
  Comlink.expose(host, server);
  server.onClose(() => void host.dispose());
  const client = portEndpoint(pair[1]);
  cleanups.push(() => client.close());
  return { client, server, sent: pair.sent };
}

async function connect(endpoint: Comlink.Endpoint, name: string, extra: Partial<Parameters<typeof connectEndpoint>[1]> = {}): Promise<MemoryClient> {
  const client = await connectEndpoint(endpoint, { name, ...extra });
  cleanups.push(() => client.close().catch(() => undefined));
  return client;
}

describe('the extension port codec', () => {
  it('round-trips what structured clone keeps, through JSON', () => {
    const vector = new Float32Array([0.1, -0, NaN, Infinity, -3.5e-38, 1 / 3]);
    const value = {
      vector,
      bytes: new Uint8Array([0, 255, 7]),
      buffer: new Uint16Array([1, 65535]).buffer,
      list: [1, undefined, null, -0, NaN, -Infinity],
      when: new Date(1_700_000_000_123),
      big: 12345678901234567890n,
      map: new Map<unknown, unknown>([['a', new Float64Array([Math.PI])], [2, new Set(['x'])]]),
      re: /ab+c/giu,
      $hk: 'a plain key that looks like a tag',
      nested: { $hk: { deeper: ['$hk'] } },
    };
    const wire = JSON.parse(JSON.stringify(encodeJson(value))) as Parameters<typeof decodeJson>[0];
    const back = decodeJson(wire) as typeof value;
    expect(back.vector).toBeInstanceOf(Float32Array);
    expect(new Uint8Array(back.vector.buffer)).toEqual(new Uint8Array(vector.buffer)); // bit-exact, NaN and -0 included
    expect(back.bytes).toEqual(value.bytes);
    expect(new Uint16Array(back.buffer)).toEqual(new Uint16Array([1, 65535]));
    expect(back.list).toHaveLength(6);
    expect(back.list[1]).toBeUndefined();
    expect(Object.is(back.list[3], -0)).toBe(true);
    expect(back.list[4]).toBeNaN();
    expect(back.list[5]).toBe(-Infinity);
    expect(back.when.getTime()).toBe(1_700_000_000_123);
    expect(back.big).toBe(12345678901234567890n);
    expect((back.map.get('a') as Float64Array)[0]).toBe(Math.PI);
    expect(back.map.get(2)).toEqual(new Set(['x']));
    expect(back.re.source).toBe('ab+c');
    expect(back.re.flags).toBe('giu');
    expect(back.$hk).toBe(value.$hk);
    expect(back.nested).toEqual({ $hk: { deeper: ['$hk'] } });
  });

  it('keeps a MemoryError a MemoryError, with code and details', () => {
    const error = new MemoryError('CONFLICT', 'conflicts found', { conflicts: [{ id: 'a', cosine: 0.9 }], vector: new Float32Array([1, 2]) });
    const back = decodeJson(JSON.parse(JSON.stringify(encodeJson({ error }))) as Parameters<typeof decodeJson>[0]) as { error: MemoryError };
    expect(back.error).toBeInstanceOf(MemoryError);
    expect(back.error.code).toBe('CONFLICT');
    expect(back.error.message).toBe('conflicts found');
    expect(back.error.details.conflicts).toEqual([{ id: 'a', cosine: 0.9 }]);
    expect(back.error.details.vector).toEqual(new Float32Array([1, 2]));
    const plain = decodeJson(encodeJson(new TypeError('boom'))) as Error;
    expect(plain).toBeInstanceOf(Error);
    expect(plain).not.toBeInstanceOf(MemoryError);
    expect(plain).toMatchObject({ name: 'TypeError', message: 'boom' });
  });

  it('refuses what structured clone refuses: functions, symbols, cycles', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const bad of [{ f: () => 1 }, { s: Symbol('x') }, cycle]) {
      expect(() => encodeJson(bad)).toThrow(expect.objectContaining({ name: 'DataCloneError' }) as Error);
    }
    // Shared (acyclic) references are fine: each is copied.
    const shared = { a: 1 };
    expect(decodeJson(encodeJson([shared, shared]))).toEqual([{ a: 1 }, { a: 1 }]);
  });
});

describe('the memory over an extension port', () => {
  it('carries calls, results and MemoryErrors (code and details intact)', async () => {
    const { client: endpoint, sent } = serve(registry());
    const memory = await connect(endpoint, uniqueName());
    const { memory: stored } = await memory.remember('we lint with eslint', { tags: ['tooling'] });
    const [hit] = await memory.recall('lint eslint', { k: 1, explain: true });
    expect(hit!.memory.id).toBe(stored.id);
    expect(hit!.memory.tags).toEqual(['tooling']);
    const error = await memory.recall('anything', { k: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'k' } });
    const missing = await memory.edit('nope', { importance: 1 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MemoryError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', details: { id: 'nope' } });
    // Everything really went through JSON.
    expect(sent.some((text) => text.includes('we lint with eslint'))).toBe(true);
  });

  it('passes progress callbacks (comlink proxies) over virtual channels, and AbortSignals', async () => {
    const { client: endpoint } = serve(registry());
    const memory = await connect(endpoint, uniqueName());
    const seen: number[] = [];
    await memory.rememberMany(Array.from({ length: 30 }, (_, i) => `item ${i}`), {
      batchSize: 10,
      onProgress: (e) => void (e.kind === 'write' && seen.push(e.done)),
    });
    expect(seen).toEqual([0, 10, 20, 30]);
    // The callback's virtual channel is gone once the host released the proxy.
    await expect.poll(() => endpoint.channels, { timeout: 2000 }).toBe(0);
    const controller = new AbortController();
    const error = await memory
      .rememberMany(Array.from({ length: 400 }, (_, i) => `more ${i}`), {
        batchSize: 10,
        signal: controller.signal,
        onProgress: (e) => {
          if (e.kind === 'write' && e.done >= 50) controller.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ABORTED' });
    expect(await memory.count()).toBeLessThan(430);
  });

  it('carries Blobs both ways: export an archive and import it into another store', async () => {
    const reg = registry();
    const source = await connect(serve(reg).client, uniqueName());
    await source.rememberMany(['alpha note', 'beta note', 'gamma note']);
    const archive = await source.exportArchive({ includeVectors: true });
    expect(archive).toBeInstanceOf(Blob);
    const head = new Uint8Array(await archive.slice(0, 2).arrayBuffer());
    expect([...head]).toEqual([0x1f, 0x8b]); // gzip
    const target = await connect(serve(reg).client, uniqueName()); // one client per port, as with comlink on a MessagePort
    const result = await target.importArchive(archive);
    expect(result).toMatchObject({ imported: 3 });
    expect(await target.count()).toBe(3);
  });

  it('fails pending and later calls with CLOSED when the port disconnects, instead of hanging', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = (): Embedder => {
      const base = createHashEmbedder();
      return { id: base.id, dim: base.dim, embed: async (texts, options) => (texts[0] === 'slow' ? (await gate, base.embed(texts, options)) : base.embed(texts, options)) };
    };
    const { client: endpoint, server } = serve(registry(slow));
    const memory = await connect(endpoint, uniqueName());
    const pending = memory.remember('slow').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    server.close(); // the offscreen document went away
    const error = await pending;
    expect(error).toBeInstanceOf(MemoryError);
    expect(error).toMatchObject({ code: 'CLOSED' });
    await expect(memory.count()).rejects.toMatchObject({ code: 'CLOSED' });
    expect(endpoint.closed).toBe(true);
    release();
  });

  it('a scope imposed by the host cannot be widened by the client', async () => {
    const reg = registry();
    const name = uniqueName();
    const { client: pageEndpoint } = serve(reg, { trust: 'untrusted' });
    const page = await connect(pageEndpoint, name, { scope: { trust: 'trusted' } });
    const { memory } = await page.remember('a sentence captured from a web page', { trust: 'trusted' });
    expect(memory.trust).toBe('untrusted');
    const { client: readerEndpoint } = serve(reg, { readOnly: true });
    const reader = await connect(readerEndpoint, name, { scope: { readOnly: false } });
    await expect(reader.forget(memory.id)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await reader.count()).toBe(1);
  });
});

describe('allowCalls: only the host methods get through', () => {
  it('answers comlink GET, SET and deep paths with PERMISSION_DENIED, and serves the named methods', async () => {
    installErrorTransfer();
    const pair = portPair();
    const host = createHost(registry());
    Comlink.expose(host, allowCalls(portEndpoint(pair[0]), ['open', 'call', 'abort', 'release', 'ping']));
    const client = portEndpoint(pair[1]);
    cleanups.push(() => client.close());
    const remote = Comlink.wrap<Record<string, unknown> & { ping(): Promise<{ ok: boolean }> }>(client);
    expect(await remote.ping()).toMatchObject({ ok: true });
    const read = await (remote.open as unknown as { constructor: Promise<unknown> }).constructor.then(
      () => null,
      (e: unknown) => e,
    );
    expect(read).toMatchObject({ code: 'PERMISSION_DENIED' });
    // A raw SET (comlink's proxy `set` trap would leave its rejection unhandled).
    const answer = new Promise<unknown>((resolve) => {
      client.addEventListener('message', ((event: MessageEvent) => {
        if ((event.data as { id?: string }).id === 'set-1') resolve(event.data);
      }) as EventListener);
    });
    client.postMessage({ id: 'set-1', type: 'SET', path: ['dispose', '__proto__', 'call'], value: { type: 'RAW', value: 1 } });
    expect(await answer).toMatchObject({ type: 'HANDLER', name: 'throw', value: { isError: true, value: { code: 'PERMISSION_DENIED' } } });
    expect(typeof Function.prototype.call).toBe('function');
    const deep = await ((remote as unknown as { open: { call: (...a: unknown[]) => Promise<unknown> } }).open.call(null, { name: 'x' })).catch((e: unknown) => e);
    expect(deep).toMatchObject({ code: 'PERMISSION_DENIED' });
    const unknownMethod = await ((remote as unknown as { dispose: () => Promise<unknown> }).dispose()).catch((e: unknown) => e);
    expect(unknownMethod).toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});

describe('an owner document bridging extension ports to its memory worker', () => {
  /** A dedicated-worker stand-in: acceptConnections on one side, postMessage with transfers on the other. */
  function fakeWorker(reg: StoreRegistry): Pick<Worker, 'postMessage'> {
    const listeners: ((event: MessageEvent) => void)[] = [];
    acceptConnections({ addEventListener: (_type, listener) => void listeners.push(listener) }, reg);
    return {
      postMessage(message: unknown, transfer?: Transferable[] | StructuredSerializeOptions) {
        const ports = (Array.isArray(transfer) ? transfer : []).filter((t): t is MessagePort => t instanceof MessagePort);
        for (const listener of listeners) listener({ data: message, ports } as unknown as MessageEvent);
      },
    };
  }

  it('serves each extension port on its own scoped connection and releases it on disconnect', async () => {
    installErrorTransfer();
    const reg = registry();
    const worker = fakeWorker(reg);
    const name = uniqueName();
    const open = (scope?: ConnectionScope): ReturnType<typeof portEndpoint> => {
      const pair = portPair();
      const outer = portEndpoint(pair[0]);
      const connection = openConnection(worker, scope);
      bridgeEndpoint(outer, connection.port);
      outer.onClose(() => connection.close());
      const client = portEndpoint(pair[1]);
      cleanups.push(() => client.close());
      return client;
    };
    const contentPort = open({ trust: 'untrusted' });
    const content = await connectEndpoint(contentPort, { name });
    const { memory } = await content.remember('clipped from a page', { trust: 'trusted' });
    expect(memory.trust).toBe('untrusted');
    const popup = await connect(open(), name);
    const { memory: own } = await popup.remember('typed by the user');
    expect(own.trust).toBe('trusted');
    const progress: number[] = [];
    await popup.rememberMany(['one', 'two', 'three'], { batchSize: 1, onProgress: (e) => void (e.kind === 'write' && progress.push(e.done)) });
    expect(progress).toEqual([0, 1, 2, 3]);
    await popup.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(reg.names()).toEqual([name]); // the content script's connection still holds the store
    // Its tab closes without a word: the port disconnects, and the worker releases its handle.
    contentPort.close();
    await expect(content.count()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect.poll(() => reg.names(), { timeout: 2000 }).toEqual([]);
  });

  it('serves the agent tools over a port: JSON in, JSON out, errors as envelopes', async () => {
    installErrorTransfer();
    const reg = registry();
    const worker = fakeWorker(reg);
    const name = uniqueName();
    const pair = portPair('houkai:tools');
    const outer = portEndpoint(pair[0]);
    const tools = createToolsHost({
      actor: 'extension:content',
      connect: (store) => connectEndpoint(openConnection(worker, { trust: 'untrusted' }).port, { name: store }),
    });
    Comlink.expose(tools, outer);
    outer.onClose(() => void tools.dispose());
    const remote = connectTools(portEndpoint(pair[1]), name);
    cleanups.push(() => pair[1].disconnect());
    expect(await remote.list()).toContain('recall');
    const openai = (await remote.list('openai')) as { type: string; function: { name: string } }[];
    expect(openai.find((t) => t.function.name === 'remember')?.type).toBe('function');
    const stored = JSON.parse(await remote.dispatch('remember', { text: 'the build uses vite', trust: 'trusted' })) as { id: string; stored: boolean };
    expect(stored.stored).toBe(true);
    const hits = JSON.parse(await remote.dispatch('recall', '{"query":"which bundler builds it?","k":3}')) as { id: string; trust: string }[];
    expect(hits[0]).toMatchObject({ id: stored.id, trust: 'untrusted' });
    expect(JSON.parse(await remote.dispatch('get', { memory_id: stored.id }))).toMatchObject({ found: true, source: 'extension:content', trust: 'untrusted' });
    const failure = JSON.parse(await remote.dispatch('recall', '{"query":"x","k":0}')) as { error: { code: string } };
    expect(failure.error.code).toBe('INVALID_ARGUMENT');
    expect(JSON.parse(await remote.dispatch('no_such_tool', '{}'))).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });
    await expect(connectTools(portEndpoint(pair[1]), '').dispatch('recall', '{}')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'store' } });
  });
});
