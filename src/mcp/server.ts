/**
 * `npx houkai-web mcp`: the agent tools (src/agents/tools.ts, the same names and schemas as in
 * pages and extensions) served over MCP's stdio transport with the official TypeScript SDK, for
 * desktop agents (Claude Desktop, Cursor, VS Code). The store lives in a folder (`--dir`, SQLite:
 * it outlives the process); stdout carries only the protocol, everything else goes to stderr. A
 * failed call is an MCP error result carrying the library's code; the server survives bad input.
 * Node only; `@modelcontextprotocol/sdk` (1.x) and `better-sqlite3` (12.x) are optional peers.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MemoryError } from '../core/errors.ts';
import type { SyncOptions } from '../core/api.ts';
import { scopeMemory, type ConnectionScope } from '../core/scope/index.ts';
import type { Trust } from '../core/types.ts';
import { memoryTools } from '../agents/tools.ts';
import { createMemory, type LocalMemory } from '../local.ts';

export interface McpOptions {
  /** The folder holding the store (default: a per-user data folder). */
  dir?: string;
  /** The store's name (default 'mcp'). */
  name?: string;
  /** The models folder (`npx houkai-web models <dir>`); default: the package's model location rules. */
  models?: string;
  /** Expose only the read tools, which write nothing. */
  readOnly?: boolean;
  /**
   * The most this agent's writes are trusted (`trusted` | `reported` | `untrusted`): the connection
   * scope's trust ceiling, as a page or an extension's content script gets it.
   */
  trust?: Trust;
  /** Confine the agent to one namespace of the store (the scope rules' `namespace`). */
  namespace?: string;
  /**
   * Replicate the store with this CouchDB database while serving (live). Credentials and the
   * end-to-end passphrase come from the environment, never the command line:
   * HOUKAI_SYNC_USERNAME / HOUKAI_SYNC_PASSWORD or HOUKAI_SYNC_TOKEN, and HOUKAI_SYNC_PASSPHRASE.
   */
  sync?: string;
  /** The environment the sync secrets are read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Where diagnostics go (default: stderr). */
  log?: (line: string) => void;
}

/** The per-user data folder: $XDG_DATA_HOME/houkai-web, else ~/.local/share/houkai-web (Windows: %APPDATA%). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['XDG_DATA_HOME']) return join(env['XDG_DATA_HOME'], 'houkai-web');
  if (process.platform === 'win32' && env['APPDATA']) return join(env['APPDATA'], 'houkai-web');
  return join(homedir(), '.local', 'share', 'houkai-web');
}

const INSTALL = 'npm install @modelcontextprotocol/sdk@1';

async function loadSdk() {
  try {
    const [server, stdio, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    return { Server: server.Server, StdioServerTransport: stdio.StdioServerTransport, ListToolsRequestSchema: types.ListToolsRequestSchema, CallToolRequestSchema: types.CallToolRequestSchema };
  } catch (error) {
    throw new MemoryError('MODEL_UNAVAILABLE', `houkai-web mcp needs the MCP SDK, which is not installed: ${INSTALL}`, { install: INSTALL, cause: (error as Error).message });
  }
}

/** Opens the store and serves its tools on stdin/stdout until stdin closes; resolves with the store closed. */
export async function serveMcp(options: McpOptions = {}): Promise<void> {
  const say = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const sdk = await loadSdk();
  const dir = options.dir ?? defaultDataDir();
  const name = options.name ?? 'mcp';
  const memory: LocalMemory = await createMemory({
    name,
    dir,
    ...(options.models ? { transformers: { localModelPath: options.models.endsWith('/') ? options.models : `${options.models}/` } } : {}),
    log: (level, message) => {
      if (level !== 'debug') say(message);
    },
  });
  const scope: ConnectionScope = {
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.trust ? { trust: options.trust } : {}),
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  };
  // A malformed scope (an unknown trust level) fails here, before anything is served.
  const client = Object.keys(scope).length ? scopeMemory(memory, scope) : memory;
  const scoped = [options.readOnly && 'read-only', options.trust && `trust ≤ ${options.trust}`, options.namespace !== undefined && `namespace ${options.namespace}`].filter(Boolean);
  say(`houkai-web mcp: store "${name}" in ${dir}, embedder ${memory.embedder.id}${scoped.length ? `, ${scoped.join(', ')}` : ''}`);
  if (options.sync) {
    try {
      await startSync(memory, options.sync, options.env ?? process.env, say);
    } catch (error) {
      await memory.close(); // nothing served: the process ends with the error
      throw error;
    }
  }
  const tools = memoryTools(client, { actor: 'mcp', ...(options.readOnly ? { readOnly: true } : {}) });
  const server = new sdk.Server({ name: 'houkai-web', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({ tools: tools.mcp() as never }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request) => {
    // The toolset never throws: a bad call is a result with isError and the library's code.
    const result = await tools.call(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>);
    return result as never;
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new sdk.StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
  if (options.sync) await memory.stopSync().catch(() => undefined);
  await memory.close();
}

/** The sync options `--sync URL` means, with its secrets from the environment. */
export function syncFromEnv(url: string, env: NodeJS.ProcessEnv): SyncOptions {
  const options: SyncOptions = { url, live: true };
  const { HOUKAI_SYNC_USERNAME: username, HOUKAI_SYNC_PASSWORD: password, HOUKAI_SYNC_TOKEN: token, HOUKAI_SYNC_PASSPHRASE: passphrase } = env;
  if (token) options.auth = { token };
  else if (username !== undefined || password !== undefined) options.auth = { username: username ?? '', password: password ?? '' };
  if (passphrase) options.encryption = { passphrase };
  return options;
}

/**
 * Starts live replication. A first round that fails is said on stderr and the tools are served
 * on the local store all the same (an agent keeps its memory when the server is away); a wrong
 * passphrase or refused credentials stop the server, as nothing it did would be right.
 */
async function startSync(memory: LocalMemory, url: string, env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<void> {
  const options = syncFromEnv(url, env);
  say(`houkai-web mcp: syncing with ${url}${options.encryption ? ', end-to-end encrypted' : ''}`);
  try {
    const result = await memory.sync(options);
    say(`houkai-web mcp: first sync round: ${result.sent} sent, ${result.received} received`);
  } catch (error) {
    if (error instanceof MemoryError && (error.code === 'SYNC_KEY' || error.code === 'SYNC_AUTH' || error.code === 'INVALID_ARGUMENT')) throw error;
    say(`houkai-web mcp: sync unavailable (${error instanceof MemoryError ? error.code : 'error'}: ${(error as Error).message}); serving the local store`);
  }
}
