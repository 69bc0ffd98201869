/**
 * The caller's side of a tools connection ({@link ToolsHostApi}): the memory tools run where
 * the memory lives, and this context sends names and JSON arguments over any comlink endpoint
 * (an extension port adapter, a MessagePort).
 */
import * as Comlink from 'comlink';
import type { ToolFormat, ToolsHostApi } from '../agents/tools-host.ts';
import { installErrorTransfer } from '../transport/error-transfer.ts';

export type { ToolFormat, ToolsHostApi } from '../agents/tools-host.ts';

export interface RemoteTools {
  readonly store: string;
  /** The tool definitions in one provider's format (default: their names). */
  list: (format?: ToolFormat) => ReturnType<ToolsHostApi['list']>;
  /** JSON in, JSON out, as `dispatchTool`: tool failures come back as `{"error": {code, message}}`. */
  dispatch(name: string, args?: string | Record<string, unknown> | null): Promise<string>;
  /** Stops using the endpoint (the host closes its store clients when the connection ends). */
  close(): void;
}

/** Talks to a tools host over `endpoint`, on the store named `store`. */
export function connectTools(endpoint: Comlink.Endpoint, store: string): RemoteTools {
  installErrorTransfer();
  const remote = Comlink.wrap<ToolsHostApi>(endpoint);
  return {
    store,
    list: (format = 'names') => remote.list(store, format),
    dispatch: (name, args) => remote.dispatch(store, name, args ?? null),
    close: () => remote[Comlink.releaseProxy](),
  };
}
