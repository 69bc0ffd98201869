/**
 * The memory tools served to another context (a popup, a content script, an agent running in
 * another extension page) over one connection: the caller sends a tool name and JSON arguments,
 * the host runs {@link memoryTools}' dispatcher next to the memory and answers with its JSON text.
 * The host, not the caller, decides the toolset's actor and whether it is read-only, and the
 * store client it runs on carries the connection's scope.
 */
import { invalid } from '../core/errors.ts';
import type { MemoryApi } from '../core/api.ts';
import { memoryTools, type AnthropicTool, type McpTool, type MemoryToolset, type OpenAITool } from './tools.ts';

export type ToolFormat = 'openai' | 'anthropic' | 'mcp' | 'names';

/** What a tools connection exposes (through comlink, or any request/response transport). */
export interface ToolsHostApi {
  /** The tool definitions for `store`, in one provider's format (or just their names). */
  list(store: string, format?: ToolFormat): Promise<OpenAITool[] | AnthropicTool[] | McpTool[] | string[]>;
  /** `dispatchTool` on `store`: JSON in, JSON out, `{"error": {code, message}}` on failure; never rejects for a tool failure. */
  dispatch(store: string, name: string, args?: string | Record<string, unknown> | null): Promise<string>;
}

export interface ToolsHostOptions {
  /** Opens a client on a store (with the connection's scope); called once per store name. */
  connect(store: string): Promise<MemoryApi & { close(): Promise<void> }>;
  /** Recorded as the `source` of memories the tools store when a call names none. */
  actor?: string;
  /** Offer the read tools only. */
  readOnly?: boolean;
}

/** One tools host per connection; `dispose` closes the store clients it opened. */
export function createToolsHost(options: ToolsHostOptions): ToolsHostApi & { dispose(): Promise<void> } {
  const opened = new Map<string, Promise<{ client: MemoryApi & { close(): Promise<void> }; tools: MemoryToolset }>>();

  function toolsetFor(store: unknown): Promise<MemoryToolset> {
    if (typeof store !== 'string' || store.trim() === '') return Promise.reject(invalid('store must be a non-empty store name', { field: 'store' }));
    let entry = opened.get(store);
    if (!entry) {
      entry = options.connect(store).then((client) => ({
        client,
        tools: memoryTools(client, { ...(options.actor ? { actor: options.actor } : {}), readOnly: options.readOnly ?? false }),
      }));
      opened.set(store, entry);
      entry.catch(() => opened.delete(store));
    }
    return entry.then((e) => e.tools);
  }

  return {
    async list(store, format = 'names') {
      const tools = await toolsetFor(store);
      switch (format) {
        case 'openai':
          return tools.openai();
        case 'anthropic':
          return tools.anthropic();
        case 'mcp':
          return tools.mcp();
        case 'names':
          return [...tools.names];
      }
      throw invalid(`format must be 'openai', 'anthropic', 'mcp' or 'names' — got ${JSON.stringify(format)}`, { field: 'format' });
    },
    async dispatch(store, name, args) {
      const tools = await toolsetFor(store);
      return tools.dispatch(name, args);
    },
    async dispose() {
      const entries = [...opened.values()];
      opened.clear();
      await Promise.allSettled(entries.map(async (e) => (await e).client.close()));
    },
  };
}
