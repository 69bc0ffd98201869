import { defineConfig } from 'playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/chromium.ts';

const port = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  timeout: 180_000,
  expect: { timeout: 30_000 },
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  webServer: {
    // The e2e build (npm run build:app -- --mode e2e → dist/e2e), with the app's real headers.
    command: `node scripts/serve.mjs --dir dist/e2e --port ${port} --host 127.0.0.1`,
    url: `http://127.0.0.1:${port}/e2e/harness.html`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
