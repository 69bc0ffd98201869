/**
 * Issue #52 item 3: `houkai-web mcp` serves the agent tools over MCP stdio. Tested with the SDK's
 * own client: spawn, list the tools, call them, a bad call answered with the library's code and
 * the server still up, restart, the memory still there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMORY_TOOL_NAMES } from '../src/agents/tools.ts';
import { parseMcpArgs } from '../src/mcp/cli.ts';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-mcp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLI = fileURLToPath(new URL('../src/mcp/cli.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function connect(): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI, '--dir', dir, '--name', 'desk', '--models', REAL_MODELS_DIR],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (err += chunk.toString()));
  const client = new Client({ name: 'houkai-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

const text = (result: unknown): string => ((result as { content: { type: string; text: string }[] }).content[0]!.text);

describe('houkai-web mcp', () => {
  it('lists the tools, answers calls, survives a bad one with the library code, and keeps the memory across a restart', async () => {
    await requireRealModels('bge-small');
    const first = await connect();
    try {
      const { tools } = await first.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...MEMORY_TOOL_NAMES]);
      expect(tools.find((t) => t.name === 'recall')!.inputSchema).toMatchObject({ type: 'object', required: ['query'] });
      const stored = await first.client.callTool({ name: 'remember', arguments: { text: 'The staging cluster is deploy-stg-2.' } });
      expect(stored.isError).toBeFalsy();
      const bad = await first.client.callTool({ name: 'recall', arguments: { query: 'x', k: 0 } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain('INVALID_ARGUMENT');
      // Still up after the bad call.
      const hits = JSON.parse(text(await first.client.callTool({ name: 'recall', arguments: { query: 'where do we stage deploys?' } }))) as { text: string }[];
      expect(hits[0]!.text).toBe('The staging cluster is deploy-stg-2.');
      expect(first.stderr()).toMatch(/store "desk" in .*embedder Xenova\/bge-small-en-v1.5/);
    } finally {
      await first.client.close();
    }
    const second = await connect();
    try {
      const hits = JSON.parse(text(await second.client.callTool({ name: 'recall', arguments: { query: 'staging cluster' } }))) as { text: string }[];
      expect(hits.map((h) => h.text)).toContain('The staging cluster is deploy-stg-2.');
    } finally {
      await second.client.close();
    }
  }, 180_000);

  it('reads its options, and refuses unknown ones', () => {
    expect(parseMcpArgs(['--dir', '/tmp/x', '--name', 'n', '--models', 'm', '--read-only'])).toEqual({ dir: '/tmp/x', name: 'n', models: 'm', readOnly: true });
    expect(() => parseMcpArgs(['--dir'])).toThrow(/--dir needs a value/);
    expect(() => parseMcpArgs(['--sync', 'http://x'])).toThrow(/unknown option --sync/);
  });
});
