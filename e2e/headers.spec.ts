/**
 * The app's response headers in the browser (issue 16, item 12; issue 15, finding 1): served by
 * the app's own server (scripts/serve.mjs, as `npm start` does) from the one header table
 * (scripts/hosting/headers.mjs), and what they do to the page and its workers: cross-origin
 * isolation, a policy without inline styles or eval on the page, a policy of its own in the
 * worker, no framing.
 */
import { expect, test } from 'playwright/test';
import { cspValue, headersFor } from '../scripts/hosting/headers.mjs';
import { workerTargets } from './worker-targets.ts';
import { expectReady } from './app-helpers.ts';

const lower = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

test('every response carries the header table’s headers: the page, the worker, the service worker, assets, a miss', async ({ page, browser }) => {
  await page.goto('/');
  await expectReady(page);
  const [shared] = await workerTargets(browser, 'shared_worker', /\/workers\/memory\.worker-[\w-]+\.js$/);
  expect(shared, 'the memory SharedWorker runs, from workers/').toBeTruthy();
  const workerPath = new URL(shared!.url).pathname;
  const asset = await page.evaluate(() => [...document.scripts].map((s) => s.src).find((src) => src.includes('/assets/'))!);
  const paths = ['/', '/index.html', '/browse/deep-link', '/sw.js', workerPath, new URL(asset).pathname, '/manifest.webmanifest', '/models/use-lite/model.json', '/no-such-file.js'];
  for (const path of paths) {
    const response = await page.request.get(path);
    const expected = lower(headersFor(path === '/browse/deep-link' ? '/index.html' : path));
    expect(Object.keys(expected).length).toBeGreaterThan(4);
    const actual = response.headers();
    for (const [name, value] of Object.entries(expected)) expect(actual[name], `${name} on ${path}`).toBe(value);
    expect(response.status(), path).toBe(path === '/no-such-file.js' ? 404 : 200);
  }
  // The page's policy: framing refused, no inline style, no eval; the worker's: its own, no eval either.
  const pagePolicy = (await page.request.get('/')).headers()['content-security-policy']!;
  expect(pagePolicy).toContain("frame-ancestors 'none'");
  expect(pagePolicy).not.toContain('unsafe-inline');
  expect(pagePolicy).not.toContain("'unsafe-eval'");
  expect((await page.request.get(workerPath)).headers()['content-security-policy']).toBe(cspValue({ for: 'worker' }));
  // A host without header support still gets the policy from the page's <meta> (less frame-ancestors).
  await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute('content', cspValue({ meta: true }));
});

test('cross-origin isolated: the page and its own worker are; the SharedWorker loads and serves under COEP', async ({ page, browser }) => {
  await page.goto('/');
  await expectReady(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('function');
  const [shared] = await workerTargets(browser, 'shared_worker', /\/workers\/memory\.worker-/);
  // Chromium enforces COEP in a SharedWorker but does not grant it isolation (no SharedArrayBuffer
  // there); the page's own dedicated worker gets it. Recorded, not asserted: a browser may change.
  const sharedIsolation = await shared!.evaluate<boolean>('crossOriginIsolated');
  test.info().annotations.push({ type: 'SharedWorker crossOriginIsolated', description: String(sharedIsolation) });

  // A dedicated memory worker of the page's own (the owner the page elects where SharedWorker is
  // missing): isolated like the page, and it serves a store.
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  const count = await page.evaluate(async () => {
    const memory = await window.houkai.connectDedicated({ name: 'headers-dedicated' });
    await memory.remember('A dedicated worker under cross-origin isolation.');
    const hits = await memory.recall('cross-origin isolation', { k: 1 });
    return hits.length;
  });
  expect(count).toBe(1);
  const [dedicated] = await workerTargets(browser, 'worker', /\/workers\/memory\.worker-/);
  expect(await dedicated!.evaluate<boolean>('crossOriginIsolated')).toBe(true);
  expect(await dedicated!.evaluate<string>('typeof SharedArrayBuffer')).toBe('function');
});

test('the policy holds: no inline style or script, no eval, no framing on the page; the worker keeps to its origin', async ({ page, browser }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  await page.goto('/');
  await expectReady(page);
  const outcome = await page.evaluate(async () => {
    const seen: string[] = [];
    document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
    const host = document.createElement('div');
    host.innerHTML = '<p id="inline-style" style="color: rgb(1, 2, 3)">x</p><style>#inline-style { outline: 7px solid red; }</style>';
    document.body.append(host);
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.body.append(script);
    // Code from a string (DevTools' own evaluation is exempt, so a timer runs it in the page).
    (setTimeout as unknown as (code: string, ms: number) => void)('window.__evalRan = true;', 0);
    // Svelte's style: directives go through the CSSOM, which the policy allows.
    const cssom = document.createElement('span');
    cssom.style.width = '42px';
    await new Promise((resolve) => setTimeout(resolve, 200));
    const p = document.getElementById('inline-style')!;
    return {
      color: getComputedStyle(p).color,
      outline: getComputedStyle(p).outlineWidth,
      inlineRan: (window as unknown as { __inlineRan?: boolean }).__inlineRan === true,
      evalRan: (window as unknown as { __evalRan?: boolean }).__evalRan === true,
      cssom: cssom.style.width,
      seen: [...new Set(seen)].sort(),
    };
  });
  expect(outcome.color).not.toBe('rgb(1, 2, 3)');
  expect(outcome.outline).not.toBe('7px');
  expect(outcome.inlineRan).toBe(false);
  expect(outcome.evalRan).toBe(false);
  expect(outcome.cssom).toBe('42px');
  expect(outcome.seen).toEqual(expect.arrayContaining(['script-src', 'script-src-elem', 'style-src-attr', 'style-src-elem']));

  // Framed, even by its own origin: refused (frame-ancestors 'none', X-Frame-Options: DENY).
  await page.evaluate(() => {
    const frame = document.createElement('iframe');
    frame.src = '/index.html?framed';
    document.body.append(frame);
  });
  await expect.poll(() => page.frames().length).toBe(2);
  const framed = page.frames()[1]!;
  await expect.poll(() => framed.url()).toMatch(/^chrome-error:/);
  expect(violations.some((v) => /frame-ancestors|X-Frame-Options/.test(v))).toBe(true);

  // The worker runs under its own policy: a request to another origin (another port) is refused before it is sent.
  const [shared] = await workerTargets(browser, 'shared_worker', /\/workers\/memory\.worker-/);
  const refused = await shared!.evaluate<string>(`new Promise((resolve) => {
    self.addEventListener('securitypolicyviolation', (e) => resolve('violation ' + e.violatedDirective));
    fetch('http://127.0.0.1:1/').then(() => resolve('fetched'), () => setTimeout(() => resolve('failed without a violation'), 500));
  })`);
  expect(refused).toBe('violation connect-src');
  // And it builds no code from strings: hnswlib's glue was rewritten, so its policy refuses eval.
  // (Code evaluated through DevTools may eval; a timer's callback runs as the worker's own code.)
  await shared!.evaluate(`setTimeout(() => { try { self.houkaiEval = String(new Function('return 7')()); } catch (e) { self.houkaiEval = e.name; } }, 0)`);
  await expect.poll(() => shared!.evaluate<string | undefined>('self.houkaiEval')).toBe('EvalError');
});
