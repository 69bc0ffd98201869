/**
 * One owner per origin where there is no SharedWorker (Chrome on Android, some WebViews).
 *
 * The tabs elect an owner with a Web Lock: the tab that holds `houkai-web:owner` starts the
 * memory worker — the only one, so there is one writer and one HNSW index in memory — and every
 * other tab waits in the lock's queue and reaches that worker over a BroadcastChannel, through
 * the same port adapter extensions use ({@link portEndpoint}: comlink messages, progress
 * callbacks as virtual channels, MemoryErrors intact). When the owner's tab closes, the browser
 * hands the lock to the next tab in the queue, which starts the worker (the store reopens from
 * IndexedDB: snapshot and replay) and announces itself; every client moves over. Calls that were
 * in flight on the old owner fail with CLOSED; nothing is half-written, since every write is one
 * IndexedDB transaction.
 */
import * as Comlink from 'comlink';
import type { Endpoint } from 'comlink';
import { MemoryError } from '../core/errors.ts';
import { bridgeEndpoint, openConnection, type Connection } from '../rpc/port-host.ts';
import { portEndpoint, type RuntimePort } from '../transport/port-endpoint.ts';

/** What the tabs say on the channel. `data` carries one port message between two tabs. */
type Wire =
  | { kind: 'hello'; from: string }
  | { kind: 'owner'; from: string }
  | { kind: 'data'; from: string; to: string; data: unknown }
  | { kind: 'bye'; from: string; to?: string };

export interface OwnerElectionOptions {
  /** Starts the memory worker when this tab becomes the owner. */
  startWorker: () => Worker;
  /** Lock and channel name; tabs that should share one owner use the same. Default 'houkai-web:owner'. */
  name?: string;
  /** How long a tab waits for an owner to answer before failing with CLOSED. Default 15 s. */
  timeoutMs?: number;
}

export interface OwnerElection {
  /** This tab's id on the channel. */
  readonly id: string;
  /** True while this tab owns the worker. */
  readonly isOwner: boolean;
  /** An endpoint to the current owner's worker (a direct connection when this tab owns it). */
  endpoint(): Promise<Endpoint>;
  /** Runs after the owner changed; endpoints obtained before are dead. Returns an unsubscribe function. */
  onOwnerChange(listener: () => void): () => void;
  /** Leaves: tells the peers, gives the lock up (the next tab takes over) and stops the worker. */
  close(): void;
}

/** One end of a point-to-point port between two tabs, carried by the shared channel. */
class PeerPort implements RuntimePort {
  readonly name = 'houkai:owner';
  private readonly messages = new Set<(message: unknown) => void>();
  private readonly disconnects = new Set<() => void>();
  private closed = false;

  readonly onMessage = {
    addListener: (f: (message: unknown) => void) => void this.messages.add(f),
    removeListener: (f: (message: unknown) => void) => void this.messages.delete(f),
  };
  readonly onDisconnect = {
    addListener: (f: () => void) => void this.disconnects.add(f),
    removeListener: (f: () => void) => void this.disconnects.delete(f),
  };

  constructor(
    readonly peer: string,
    private readonly send: (data: unknown) => void,
    private readonly sayBye: () => void,
    private readonly forget: () => void,
  ) {}

  postMessage(message: unknown): void {
    if (this.closed) throw new MemoryError('CLOSED', 'The connection to the tab that owns the memory worker is closed');
    this.send(message);
  }

  /** This side hangs up (as chrome.runtime.Port: its own onDisconnect does not fire). */
  disconnect(): void {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    this.sayBye();
  }

  receive(message: unknown): void {
    if (!this.closed) for (const f of [...this.messages]) f(message);
  }

  /** The other side is gone. */
  drop(): void {
    if (this.closed) return;
    this.closed = true;
    this.forget();
    for (const f of [...this.disconnects]) f();
  }
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether this browser needs (and supports) owner election: no SharedWorker, but Web Locks and BroadcastChannel. */
export function canElectOwner(): boolean {
  return typeof navigator !== 'undefined' && 'locks' in navigator && typeof BroadcastChannel !== 'undefined' && typeof Worker !== 'undefined';
}

/** Joins (or starts) the election among this origin's tabs. */
export function electOwner(options: OwnerElectionOptions): OwnerElection {
  const name = options.name ?? 'houkai-web:owner';
  const timeoutMs = options.timeoutMs ?? 15_000;
  const id = randomId();
  const channel = new BroadcastChannel(name);
  const post = (wire: Wire): void => channel.postMessage(wire);
  /** Ports by peer: as owner, one per client tab; otherwise the one to the owner. */
  const ports = new Map<string, PeerPort>();
  const connections = new Map<string, Connection>();
  const changeListeners = new Set<() => void>();
  let ownerId: string | null = null;
  let ownerKnown: (() => void)[] = [];
  let worker: Worker | null = null;
  let local: Connection | null = null;
  let release: (() => void) | null = null;
  let closed = false;
  /** The endpoint over each port to the owner (one per port, shared by the tab's connections). */
  const endpoints = new WeakMap<PeerPort, Endpoint>();
  /**
   * Comlink releases an endpoint, closing it and the worker's end, once every proxy over it has
   * been collected: a proxy the election keeps holds the shared endpoints open while it lives.
   */
  const pins: unknown[] = [];
  const pin = (endpoint: Endpoint): void => void pins.push(Comlink.wrap(endpoint));

  function newPort(peer: string): PeerPort {
    const port = new PeerPort(
      peer,
      (data) => post({ kind: 'data', from: id, to: peer, data }),
      () => post({ kind: 'bye', from: id, to: peer }),
      () => {
        if (ports.get(peer) === port) ports.delete(peer);
        connections.get(peer)?.close();
        connections.delete(peer);
      },
    );
    ports.set(peer, port);
    return port;
  }

  /** As owner: a client tab's first message opens its own connection to the worker. */
  function acceptClient(peer: string): PeerPort {
    const port = newPort(peer);
    const connection = openConnection(worker!);
    connections.set(peer, connection);
    bridgeEndpoint(portEndpoint(port), connection.port);
    return port;
  }

  function setOwner(next: string): void {
    if (next === ownerId) return;
    const previous = ownerId;
    ownerId = next;
    if (previous !== null && previous !== id) ports.get(previous)?.drop();
    const waiting = ownerKnown;
    ownerKnown = [];
    for (const resolve of waiting) resolve();
    if (previous !== null) notifyChange();
  }

  function notifyChange(): void {
    for (const listener of [...changeListeners]) listener();
  }

  channel.onmessage = (event: MessageEvent<Wire>) => {
    const wire = event.data;
    if (closed || !wire || typeof wire !== 'object' || wire.from === id) return;
    switch (wire.kind) {
      case 'hello':
        if (worker) post({ kind: 'owner', from: id });
        break;
      case 'owner':
        setOwner(wire.from);
        break;
      case 'data':
        if (wire.to !== id) break;
        (ports.get(wire.from) ?? (worker ? acceptClient(wire.from) : undefined))?.receive(wire.data);
        break;
      case 'bye':
        if (wire.to !== undefined && wire.to !== id) break;
        ports.get(wire.from)?.drop();
        if (wire.from === ownerId && !worker) {
          // The owner left: clients start reconnecting now and wait for the next owner's announcement.
          ownerId = null;
          notifyChange();
        }
        break;
    }
  };

  // Every tab queues for the lock; the one holding it owns the worker until its tab goes away.
  void navigator.locks
    .request(name, () => {
      if (closed) return undefined;
      worker = options.startWorker();
      post({ kind: 'owner', from: id });
      setOwner(id);
      return new Promise<void>((resolve) => (release = resolve));
    })
    .catch(() => undefined);

  const onPageHide = (): void => election.close();
  globalThis.addEventListener?.('pagehide', onPageHide);

  function waitForOwner(): Promise<void> {
    if (ownerId !== null) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      post({ kind: 'hello', from: id });
      const ask = setInterval(() => post({ kind: 'hello', from: id }), 250);
      const timer = setTimeout(() => {
        clearInterval(ask);
        ownerKnown = ownerKnown.filter((f) => f !== done);
        reject(new MemoryError('CLOSED', `No tab answered as the owner of the memory worker within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearInterval(ask);
        clearTimeout(timer);
        resolve();
      };
      ownerKnown.push(done);
    });
  }

  const election: OwnerElection = {
    id,
    get isOwner() {
      return worker !== null;
    },
    async endpoint() {
      if (closed) throw new MemoryError('CLOSED', 'This tab left the owner election');
      await waitForOwner();
      if (worker) {
        if (!local) {
          local = openConnection(worker);
          pin(local.port);
        }
        return local.port;
      }
      // One port to the owner, shared by this tab's connections (each closes only its store).
      const owner = ownerId!;
      const port = ports.get(owner) ?? newPort(owner);
      let endpoint = endpoints.get(port);
      if (!endpoint) {
        endpoint = portEndpoint(port);
        endpoints.set(port, endpoint);
        pin(endpoint);
      }
      return endpoint;
    },
    onOwnerChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      globalThis.removeEventListener?.('pagehide', onPageHide);
      post({ kind: 'bye', from: id });
      for (const port of [...ports.values()]) port.drop();
      local?.close();
      worker?.terminate();
      worker = null;
      release?.();
      channel.close();
    },
  };
  return election;
}
