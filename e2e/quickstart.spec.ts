/**
 * Issue 15, finding 1: the README's quickstart start command, run as written (on a free port),
 * gives the real app — the production build with its service worker and headers, not a dev
 * server: visit once, go offline, reload, remember and recall.
 *
 * The command builds dist/app when its sources changed since the last build, so the first run
 * on a fresh clone includes a production build (~30–60 s here).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect, test } from 'playwright/test';
import { expectReady, guardPages, remember } from './app-helpers.ts';

guardPages();

const ROOT = join(import.meta.dirname, '..');

/** The quickstart's first command (install and start), from the README's first code block. */
function quickstartStartCommand(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
  expect(commands, 'the quickstart has exactly two commands').toHaveLength(2);
  expect(commands[0]).toMatch(/npm start$/);
  return commands[0]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Ends the command's whole process group (npm, the start script, the server). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

test('the quickstart command serves the offline PWA: visit once, go offline, reload, remember and recall', async ({ page, context }) => {
  test.setTimeout(15 * 60_000);
  const command = quickstartStartCommand();
  const port = await freePort();
  const child = spawn('sh', ['-c', command], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        output.push(chunk.toString());
        const match = /(http:\/\/[\w.:[\]-]+\/)\s*$/m.exec(seen);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before printing its URL:\n${output.join('')}`)));
    });
    expect(new URL(url).port).toBe(String(port));

    // The production build with its headers: isolated, installable, and not Vite's dev client.
    const response = await page.goto(url);
    expect(response!.headers()['cross-origin-opener-policy']).toBe('same-origin');
    expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await expectReady(page, 180_000);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await expect(page.locator('script[src*="@vite/client"]')).toHaveCount(0);
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 60_000 });
    await remember(page, 'The quickstart serves the production build of the app.');

    // Offline: the reload comes from the service worker's precache, the store works, recall finds both.
    await context.setOffline(true);
    try {
      await page.reload();
      await expectReady(page, 180_000);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await remember(page, 'Remembered with the network off, after the first visit.');
      await page.getByLabel('Search your memories').fill('remembered with the network off');
      await expect(page.locator('.result').first()).toContainText('network off');
      await page.getByLabel('Search your memories').fill('production build quickstart');
      await expect(page.locator('.result').first()).toContainText('quickstart serves the production build');
    } finally {
      await context.setOffline(false);
    }
  } finally {
    await stop(child);
  }
  expect(child.exitCode === 0 || child.signalCode !== null || child.exitCode === 143).toBe(true);
});
