/**
 * A Node `worker_threads` Worker or MessagePort as a comlink endpoint: Node's ports emit
 * 'message' with the data itself (EventEmitter style), comlink listens for events carrying it in
 * `data`. Used on both ends: `serveMemory(nodeEndpoint(parentPort))` in the thread and
 * `connectEndpoint(nodeEndpoint(worker), …)` on the main thread.
 */
import type { Endpoint } from 'comlink';

/** What a Node Worker, MessagePort or parentPort offers. */
export interface NodeMessagePort {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  off(event: 'message', listener: (data: unknown) => void): unknown;
  start?: () => void;
}

type Listener = EventListenerOrEventListenerObject;

export function nodeEndpoint(port: NodeMessagePort): Endpoint {
  const wrapped = new WeakMap<Listener, (data: unknown) => void>();
  return {
    postMessage: (message: unknown, transfer?: Transferable[]) => port.postMessage(message, transfer),
    addEventListener(_type: string, listener: Listener) {
      const handler = (data: unknown): void => {
        const event = { data } as MessageEvent;
        if (typeof listener === 'function') listener(event);
        else listener.handleEvent(event);
      };
      wrapped.set(listener, handler);
      port.on('message', handler);
    },
    removeEventListener(_type: string, listener: Listener) {
      const handler = wrapped.get(listener);
      if (!handler) return;
      port.off('message', handler);
      wrapped.delete(listener);
    },
    ...(port.start ? { start: () => port.start?.() } : {}),
  };
}
