/**
 * The offscreen document: owner of the memory worker (`worker/memory.worker.ts`, the same
 * worker the app uses) and the one listener for the extension's ports. For each port it decides
 * the client's scope from who is on the other end, never from what the client asks:
 *
 * - an extension page (the popup): full access;
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
import type { HostApi } from '../rpc/protocol.ts';
import type { ConnectionScope } from '../rpc/host.ts';
import { allowCalls, bridgeEndpoint, openConnection } from '../rpc/port-host.ts';
import { installErrorTransfer } from '../transport/error-transfer.ts';
import { chrome, type ExtensionPort, type MessageSender } from './chrome.ts';
import { MEMORY_PORT, PAGE_NAMESPACE, STORE, TOOLS_PORT, type HostReadyMessage } from './protocol.ts';

installErrorTransfer();

const worker = new Worker(new URL('../../worker/memory.worker.ts', import.meta.url), { type: 'module', name: 'houkai-memory' });
worker.addEventListener('error', (event) => console.error('houkai: the memory worker failed', event.message));

interface Caller {
  actor: string;
  scope?: ConnectionScope;
}

const extensionOrigin = new URL(chrome.runtime.getURL('/')).origin;

/** The calls a port may make (see allowCalls: nothing else of comlink's protocol gets through). */
const HOST_METHODS = ['open', 'call', 'abort', 'release', 'ping'] as const satisfies readonly (keyof HostApi)[];
const TOOLS_METHODS = ['list', 'dispatch'] as const satisfies readonly (keyof ToolsHostApi)[];

/** Who is on the other end of a port; null for anything that is not this extension. */
export function classify(sender: MessageSender | undefined): Caller | null {
  if (!sender || sender.id !== chrome.runtime.id) return null;
  const url = sender.url ?? '';
  if (url.startsWith(`${extensionOrigin}/`)) {
    const page = new URL(url).pathname.replace(/^\//, '').replace(/\.html$/, '') || 'page';
    return { actor: `extension:${page}` };
  }
  return { actor: 'extension:content', scope: { trust: 'untrusted', namespace: PAGE_NAMESPACE } };
}

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
  const tools = createToolsHost({
    actor: caller.actor,
    connect: (store) => connectEndpoint(openConnection(worker, caller.scope, caller.actor).port, { ...STORE, name: store }),
  });
  Comlink.expose(tools, allowCalls(endpoint, TOOLS_METHODS));
  endpoint.onClose(() => void tools.dispose());
}

chrome.runtime.onConnect.addListener(serve);
const ready: HostReadyMessage = { type: 'houkai:host-ready' };
void chrome.runtime.sendMessage(ready).catch(() => undefined);
