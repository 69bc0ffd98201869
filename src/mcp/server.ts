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
  say(`houkai-web mcp: store "${name}" in ${dir}, embedder ${memory.embedder.id}${options.readOnly ? ', read-only' : ''}`);
  const tools = memoryTools(memory, { actor: 'mcp', ...(options.readOnly ? { readOnly: true } : {}) });
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
  await memory.close();
}
