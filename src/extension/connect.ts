/**
 * How the popup and the content scripts reach the memory: ask the background service worker
 * (`startMemoryHost`) to start the offscreen document (`serveMemoryHost`), then open a port to it
 * and speak comlink over the port adapter.
 */
import { portEndpoint } from '../transport/port-endpoint.ts';
import { connectEndpoint, type MemoryClient } from '../client/connect.ts';
import { connectTools, type RemoteTools } from '../client/tools.ts';
import { MemoryError } from '../core/errors.ts';
import { chrome } from './chrome.ts';
import type { OpenRequest } from '../rpc/protocol.ts';
import { MEMORY_PORT, STORE, TOOLS_PORT, type EnsureHostMessage } from './protocol.ts';

async function ensureHost(): Promise<void> {
  const message: EnsureHostMessage = { type: 'houkai:ensure-host' };
  const reply = (await chrome.runtime.sendMessage(message)) as { ok?: boolean; message?: string } | undefined;
  if (!reply?.ok) throw new MemoryError('CLOSED', `The memory host did not start: ${reply?.message ?? 'no answer'}`);
}

/**
 * A store of the extension, through a port of its own (closing the client disconnects it).
 * Default: the store 'extension' on use-lite. The offscreen document decides the scope.
 */
export async function openMemory(request: Partial<Omit<OpenRequest, 'scope'>> = {}): Promise<MemoryClient> {
  await ensureHost();
  const endpoint = portEndpoint(chrome.runtime.connect({ name: MEMORY_PORT }));
  try {
    return await connectEndpoint(endpoint, { ...STORE, ...request, onClose: () => endpoint.close() });
  } catch (error) {
    endpoint.close();
    throw error;
  }
}

/** The agent tools on a store of the extension (default 'extension'), run next to the memory. */
export async function openTools(store: string = STORE.name): Promise<RemoteTools> {
  await ensureHost();
  const endpoint = portEndpoint(chrome.runtime.connect({ name: TOOLS_PORT }));
  const tools = connectTools(endpoint, store);
  return {
    ...tools,
    close() {
      tools.close();
      endpoint.close();
    },
  };
}
