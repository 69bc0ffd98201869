/**
 * The offscreen document's part: owner of the memory worker and the one listener for the
 * extension's ports. For each port it decides the client's scope from who is on the other end,
 * never from what the client asks:
 *
 * - an extension page (the popup, options): full access;
 * - a content script (a web page's renderer, the least trusted context): everything it writes is
 *   stored `untrusted`, so packs mark it and `minTrust` can filter it out, and it lives in the
 *   namespace `web`: it reads only what content scripts kept, and cannot change anything else.
 *
 * `houkai:memory` ports are bridged to a scoped connection of the worker (comlink end to end);
 * `houkai:tools` ports get the agent tools (`dispatchTool`) run here, on a scoped client, with the
 * caller's actor as the provenance of what the tools store.
 */
import * as Comlink from 'comlink';
import { portEndpoint } from '../transport/port-endpoint.ts';
import { connectEndpoint } from '../client/connect.ts';
import { createToolsHost, type ToolsHostApi } from '../agents/tools-host.ts';
import type { HostApi, OpenRequest } from '../rpc/protocol.ts';
import type { ConnectionScope } from '../rpc/host.ts';
import { allowCalls, bridgeEndpoint, openConnection } from '../rpc/port-host.ts';
import { installErrorTransfer } from '../transport/error-transfer.ts';
import { chrome, type ExtensionPort, type MessageSender } from './chrome.ts';
import { MEMORY_PORT, PAGE_NAMESPACE, STORE, TOOLS_PORT, type HostReadyMessage } from './protocol.ts';

export interface Caller {
  actor: string;
  scope?: ConnectionScope;
}

/** The calls a port may make (see allowCalls: nothing else of comlink's protocol gets through). */
const HOST_METHODS = ['open', 'call', 'abort', 'release', 'ping'] as const satisfies readonly (keyof HostApi)[];
const TOOLS_METHODS = ['list', 'dispatch'] as const satisfies readonly (keyof ToolsHostApi)[];

/** Who is on the other end of a port; null for anything that is not this extension. */
export function classify(sender: MessageSender | undefined): Caller | null {
  if (!sender || sender.id !== chrome.runtime.id) return null;
  const extensionOrigin = new URL(chrome.runtime.getURL('/')).origin;
  const url = sender.url ?? '';
  if (url.startsWith(`${extensionOrigin}/`)) {
    const page = new URL(url).pathname.replace(/^\//, '').replace(/\.html$/, '') || 'page';
    return { actor: `extension:${page}` };
  }
  return { actor: 'extension:content', scope: { trust: 'untrusted', namespace: PAGE_NAMESPACE } };
}

export interface MemoryHostOptions {
  /** The memory worker this document owns, or where to start it from (the package's prebuilt `memory.worker.js`, copied into the extension). */
  worker: Worker | string | URL;
  /** What the agent tools open (default: the store 'extension' on use-lite); the tools choose the store's name. */
  tools?: Omit<OpenRequest, 'name' | 'scope'>;
}

/**
 * Call once in the offscreen document: starts (or takes) the memory worker and serves the
 * extension's ports, then tells the background (`startMemoryHost`) it is ready.
 */
export function serveMemoryHost(options: MemoryHostOptions): Worker {
  installErrorTransfer();
  const worker = options.worker instanceof Worker ? options.worker : new Worker(options.worker, { type: 'module', name: 'houkai-memory' });
  worker.addEventListener('error', (event) => console.error('houkai: the memory worker failed', event.message));
  const { name: _name, ...toolsDefaults } = STORE;
  const tools = options.tools ?? toolsDefaults;

  function serve(port: ExtensionPort): void {
    if (port.name !== MEMORY_PORT && port.name !== TOOLS_PORT) return;
    const caller = classify(port.sender);
    if (!caller) {
      port.disconnect();
      return;
    }
    const endpoint = portEndpoint(port);
    if (port.name === MEMORY_PORT) {
      const connection = openConnection(worker, caller.scope, caller.actor);
      bridgeEndpoint(allowCalls(endpoint, HOST_METHODS), connection.port);
      endpoint.onClose(() => connection.close());
      return;
    }
    const host = createToolsHost({
      actor: caller.actor,
      connect: (store) => connectEndpoint(openConnection(worker, caller.scope, caller.actor).port, { ...tools, name: store }),
    });
    Comlink.expose(host, allowCalls(endpoint, TOOLS_METHODS));
    endpoint.onClose(() => void host.dispose());
  }

  chrome.runtime.onConnect.addListener(serve);
  const ready: HostReadyMessage = { type: 'houkai:host-ready' };
  void chrome.runtime.sendMessage(ready).catch(() => undefined);
  return worker;
}
