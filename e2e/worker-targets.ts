/**
 * Evaluates expressions inside a page's workers over the browser's DevTools protocol. Playwright
 * exposes dedicated workers but not SharedWorkers; CDP sees both as targets ('worker',
 * 'shared_worker', 'service_worker').
 */
import type { Browser, CDPSession } from 'playwright/test';

export interface WorkerTarget {
  type: string;
  url: string;
  evaluate<T>(expression: string): Promise<T>;
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

/** The URLs of the browser's running targets of `type` matching `url` (nothing attached). */
export async function targetUrls(browser: Browser, type: string, url: RegExp): Promise<string[]> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: TargetInfo[] };
    return targetInfos.filter((t) => t.type === type && url.test(t.url)).map((t) => t.url);
  } finally {
    await cdp.detach();
  }
}

/** The browser's worker targets of `type` whose URL matches `url`, waiting up to `timeoutMs` for one. */
export async function workerTargets(browser: Browser, type: string, url: RegExp, timeoutMs = 30_000): Promise<WorkerTarget[]> {
  const cdp: CDPSession = await browser.newBrowserCDPSession();
  const deadline = Date.now() + timeoutMs;
  let found: TargetInfo[] = [];
  for (;;) {
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: TargetInfo[] };
    found = targetInfos.filter((t) => t.type === type && url.test(t.url));
    if (found.length || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  let nextId = 1;
  const pending = new Map<number, (message: { result?: { result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }; error?: { message: string } }) => void>();
  cdp.on('Target.receivedMessageFromTarget', (event: { message: string }) => {
    const message = JSON.parse(event.message) as { id?: number };
    if (message.id !== undefined) pending.get(message.id)?.(message as never);
  });
  return Promise.all(
    found.map(async (target) => {
      const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
      return {
        type: target.type,
        url: target.url,
        async evaluate<T>(expression: string): Promise<T> {
          const id = nextId++;
          const reply = new Promise<Parameters<NonNullable<ReturnType<typeof pending.get>>>[0]>((resolve) => pending.set(id, resolve));
          await cdp.send('Target.sendMessageToTarget', {
            sessionId,
            message: JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true, awaitPromise: true } }),
          });
          const message = await reply;
          pending.delete(id);
          if (message.error) throw new Error(message.error.message);
          const details = message.result?.exceptionDetails;
          if (details) throw new Error(details.exception?.description ?? details.text);
          return message.result?.result.value as T;
        },
      };
    }),
  );
}
