/**
 * The app served as a host would deploy it for sync (e2e/sync.spec.ts, e2e/mcp-sync.spec.ts): its
 * own server (scripts/serve.mjs, the e2e build) with the sync server's origin allowed in the
 * worker's policy (HOUKAI_SYNC_ORIGINS), on a free loopback port.
 */
import { spawn } from 'node:child_process';

export async function serveAppForSync(syncOrigin: string): Promise<{ url: string; close: () => void }> {
  const app = spawn(process.execPath, ['scripts/serve.mjs', '--dir', 'dist/e2e', '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, HOUKAI_SYNC_ORIGINS: syncOrigin },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve.mjs printed no URL within 20 s')), 20_000);
    let out = '';
    app.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
  });
  return { url, close: () => void app.kill('SIGTERM') };
}
