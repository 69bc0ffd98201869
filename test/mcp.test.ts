/**
 * Issue #52 item 3: `houkai-web mcp` serves the agent tools over MCP stdio. Tested with the SDK's
 * own client: spawn, list the tools, call them, a bad call answered with the library's code and
 * the server still up, restart, the memory still there.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMORY_TOOL_NAMES } from '../src/agents/tools.ts';
import { parseMcpArgs } from '../src/mcp/cli.ts';
import { syncFromEnv } from '../src/mcp/server.ts';
import { createMemory } from '../src/local.ts';
import { ALICE, useCouchServer } from './helpers/couch-suite.ts';
import { uniqueName } from './helpers/store.ts';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-mcp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLI = fileURLToPath(new URL('../src/mcp/cli.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function connect(extra: string[] = [], env: Record<string, string> = {}, name = 'desk'): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI, '--dir', dir, '--name', name, '--models', REAL_MODELS_DIR, ...extra],
    cwd: ROOT,
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...env },
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
    expect(parseMcpArgs(['--trust', 'untrusted', '--namespace', 'desk', '--sync', 'https://couch.example/mem'])).toEqual({ trust: 'untrusted', namespace: 'desk', sync: 'https://couch.example/mem' });
    expect(() => parseMcpArgs(['--dir'])).toThrow(/--dir needs a value/);
    expect(() => parseMcpArgs(['--trust', 'total'])).toThrow(/--trust must be one of trusted, reported, untrusted/);
    expect(() => parseMcpArgs(['--sync', 'http://x'])).toThrow(/--sync needs http\(s\):\/\/host\/database/);
    expect(() => parseMcpArgs(['--sync', 'https://alice:pw@couch.example/mem'])).toThrow(/not in the address/);
    expect(() => parseMcpArgs(['--scope', 'x'])).toThrow(/unknown option --scope/);
  });

  it('the secrets of --sync come from the environment', () => {
    expect(syncFromEnv('http://h/db', {})).toEqual({ url: 'http://h/db', live: true });
    expect(syncFromEnv('http://h/db', { HOUKAI_SYNC_USERNAME: 'a', HOUKAI_SYNC_PASSWORD: 'p', HOUKAI_SYNC_PASSPHRASE: 'correct horse battery' })).toEqual({
      url: 'http://h/db',
      live: true,
      auth: { username: 'a', password: 'p' },
      encryption: { passphrase: 'correct horse battery' },
    });
    expect(syncFromEnv('http://h/db', { HOUKAI_SYNC_TOKEN: 't' }).auth).toEqual({ token: 't' });
  });
});

describe('houkai-web mcp, scoped and synced', () => {
  const couch = useCouchServer('mcp');
  const PASSPHRASE = 'one memory on every device';

  it('a wrong passphrase stops the server at once with SYNC_KEY, nothing served', async () => {
    const url = await couch.database();
    const owner = await createMemory({ name: uniqueName('mcp-owner'), embedder: 'use-lite', index: 'exact' });
    await owner.remember('Sealed with the right passphrase.');
    await owner.sync({ url, auth: ALICE, encryption: { passphrase: PASSPHRASE } });
    await owner.close();
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', CLI, '--dir', dir, '--name', 'wrong-key', '--models', REAL_MODELS_DIR, '--sync', url],
        { cwd: ROOT, timeout: 90_000, env: { ...process.env, HOUKAI_SYNC_USERNAME: ALICE.username, HOUKAI_SYNC_PASSWORD: ALICE.password, HOUKAI_SYNC_PASSPHRASE: 'not the passphrase at all' } },
        (_error, _out, err) => resolve({ code: child.exitCode, stderr: err }),
      );
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/houkai-web mcp: .*passphrase|SYNC_KEY/i);
  }, 120_000);

  it('writes in its namespace at its trust; an encrypted live sync carries its memory out and a forget back in', async () => {
    await requireRealModels('bge-small');
    const url = await couch.database();
    const env = { HOUKAI_SYNC_USERNAME: ALICE.username, HOUKAI_SYNC_PASSWORD: ALICE.password, HOUKAI_SYNC_PASSPHRASE: PASSPHRASE };
    const agent = await connect(['--trust', 'reported', '--namespace', 'desk', '--sync', url], env, 'synced');
    const peer = await createMemory({ name: uniqueName('mcp-peer'), embedder: 'bge-small', transformers: { localModelPath: REAL_MODELS_DIR }, index: 'exact' });
    try {
      expect(agent.stderr()).toMatch(/trust ≤ reported, namespace desk/);
      expect(agent.stderr()).toMatch(/syncing with .*end-to-end encrypted/);
      const stored = JSON.parse(text(await agent.client.callTool({ name: 'remember', arguments: { text: 'The desk booking system is called Deskly.' } }))) as { id: string };
      // The other device (here a Node store; the app in e2e) gets it through the server, sealed there.
      let arrived = null as Awaited<ReturnType<typeof peer.get>>;
      for (let i = 0; i < 60 && !arrived; i++) {
        await peer.sync({ url, auth: ALICE, encryption: { passphrase: PASSPHRASE } });
        arrived = await peer.get(stored.id);
        if (!arrived) await new Promise((r) => setTimeout(r, 500));
      }
      expect(arrived).toMatchObject({ text: 'The desk booking system is called Deskly.', trust: 'reported' });
      expect(arrived!.tags).toContain('ns:desk');
      const db = url.slice(url.lastIndexOf('/'));
      const onServer = await couch.server.admin('GET', `${db}/_all_docs?include_docs=true`);
      expect(onServer.status).toBe(200);
      expect(JSON.stringify(onServer.body)).not.toContain('Deskly');
      // A forget on the other device reaches the agent's store.
      await peer.forget(stored.id);
      await peer.sync({ url, auth: ALICE, encryption: { passphrase: PASSPHRASE } });
      let gone = false;
      for (let i = 0; i < 60 && !gone; i++) {
        const hits = JSON.parse(text(await agent.client.callTool({ name: 'recall', arguments: { query: 'what is the desk booking system called?' } }))) as { id: string }[];
        gone = !hits.some((h) => h.id === stored.id);
        if (!gone) await new Promise((r) => setTimeout(r, 500));
      }
      expect(gone).toBe(true);
    } finally {
      await agent.client.close();
      await peer.close();
    }
  }, 240_000);
});
