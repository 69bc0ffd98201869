/**
 * The Agent page (issue 9's demo): a scripted agent loop calls the memory tools through
 * memoryTools/dispatchTool and the page shows each call — tool name, arguments JSON — and its
 * result JSON, errors included, with Run / Step / Reset. It works in its own sandbox store.
 */
import { expect, test, type Locator } from 'playwright/test';
import { expectNoHorizontalScroll, expectReady, guardPages, openStore, shot } from './app-helpers.ts';

guardPages();

/** The parsed JSON shown in one of a call's blocks. */
async function json(call: Locator, block: 'Arguments' | 'Result'): Promise<unknown> {
  const text = await call.locator('.io-block', { has: call.page().getByRole('heading', { name: block }) }).locator('pre').innerText();
  return JSON.parse(text) as unknown;
}

test('the agent demo runs the tool script and shows every call and result, errors as data', async ({ page }) => {
  await openStore(page, 'agent-host');
  await page.getByRole('link', { name: 'Agent' }).click();
  await expect(page).toHaveURL(/#\/agent$/);
  await expect(page.getByRole('heading', { name: 'Agent demo' })).toBeVisible();
  await expect(page.getByText('No calls yet.')).toBeVisible();
  const run = page.getByRole('button', { name: 'Run', exact: true });
  await expect(run).toBeEnabled({ timeout: 60_000 });
  await shot(page, 'agent-empty', false);

  // Step: one call at a time.
  await page.getByRole('button', { name: 'Step' }).click();
  const calls = page.getByRole('list', { name: 'Tool calls' }).locator('> li');
  await expect(calls).toHaveCount(1);
  await expect(calls.first().locator('.tool-name')).toHaveText('remember');
  expect(await json(calls.first(), 'Arguments')).toEqual({ text: 'Ada prefers answers in metric units and British spelling.', type: 'feedback', tags: ['user', 'preferences'], importance: 0.8 });
  const stored = (await json(calls.first(), 'Result')) as { id: string; stored: boolean; action: string };
  expect(stored.stored).toBe(true);
  expect(stored.action).toBe('stored');
  expect(stored.id).toMatch(/^[0-9a-f-]{36}$/);
  await expect(page.locator('.progress')).toHaveText(/^1 of \d+ calls$/);

  // Run: the rest of the script.
  await page.getByRole('button', { name: 'Run the rest' }).click();
  await expect(page.getByText('The script is done.')).toBeVisible({ timeout: 120_000 });
  const tools = await calls.locator('.tool-name').allInnerTexts();
  expect(tools).toEqual(['remember', 'remember', 'remember', 'remember', 'recall', 'recall_pack', 'link', 'neighbors', 'find_conflicts', 'supersede', 'recall', 'remember', 'teleport', 'stats']);
  const call = (i: number) => calls.nth(i);

  // The contradicting fact is stored and its conflict reported in the result.
  const contradiction = (await json(call(3), 'Result')) as { stored: boolean; conflicts?: { kind: string; other_id: string }[] };
  expect(contradiction.stored).toBe(true);
  expect(contradiction.conflicts?.some((c) => c.kind === 'contradiction')).toBe(true);
  // recall finds the deploy facts; recall_pack gives a prompt block within its budget.
  const hits = (await json(call(4), 'Result')) as { text: string; score: number }[];
  expect(hits).toHaveLength(3);
  expect(hits.some((h) => h.text === 'Production deploys go out from the main branch every Tuesday.')).toBe(true);
  const pack = (await json(call(5), 'Result')) as { text: string; used_tokens: number; budget: number };
  expect(pack.budget).toBe(120);
  expect(pack.used_tokens).toBeLessThanOrEqual(120);
  expect(pack.text).toContain('deploys');
  // link uses the ids earlier results returned; neighbors then walks it.
  const deployId = ((await json(call(1), 'Result')) as { id: string }).id;
  const pipelineId = ((await json(call(2), 'Result')) as { id: string }).id;
  expect(await json(call(6), 'Arguments')).toEqual({ src_id: pipelineId, dst_id: deployId, rel: 'supports' });
  expect(await json(call(6), 'Result')).toEqual({ ok: true, src_id: pipelineId, dst_id: deployId, rel: 'supports', added: true });
  const around = (await json(call(7), 'Result')) as { id: string; rel: string; direction: string }[];
  expect(around).toContainEqual(expect.objectContaining({ id: pipelineId, rel: 'supports', direction: 'in' }));
  const conflicts = (await json(call(8), 'Result')) as { kind: string }[];
  expect(conflicts.some((c) => c.kind === 'contradiction')).toBe(true);
  expect(await json(call(9), 'Result')).toMatchObject({ ok: true, old_id: deployId, noop: false });

  // The bad calls come back as {error: {code, message}}, marked as failed.
  for (const [i, code] of [
    [10, 'INVALID_ARGUMENT'],
    [11, 'INVALID_ARGUMENT'],
    [12, 'UNKNOWN_TOOL'],
  ] as const) {
    await expect(call(i)).toHaveClass(/failed/);
    await expect(call(i).locator('.verdict')).toHaveText(code);
    const body = (await json(call(i), 'Result')) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(5);
  }
  expect(await call(11).locator('.io-block').first().locator('pre').innerText()).toBe('{"text": "unterminated');
  expect(((await json(call(12), 'Result')) as { error: { message: string } }).error.message).toContain('available tools: remember, recall');
  // Nothing the bad calls sent was written: the store holds the four facts, one superseded.
  expect(await json(call(13), 'Result')).toMatchObject({ count: 4, active: 3, superseded: 1, collection: 'agent-demo' });
  await expect(calls.locator('.verdict.ok-pill')).toHaveCount(11);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'agent-timeline', false);
  await call(10).scrollIntoViewIfNeeded();
  await shot(page, 'agent-errors', false);

  // The tool definitions, in each provider's format.
  await page.getByText(/The \d+ tools the agent is given/).click();
  await expect(page.locator('.defs-json')).toContainText('"type": "function"');
  await page.locator('.defs .segmented label', { hasText: 'MCP tools/list' }).click();
  await expect(page.locator('.defs-json')).toContainText('"readOnlyHint"');

  // The store open in the other tabs was not touched.
  await expect(page.locator('.chips .chip').first()).toContainText('0 memories');

  // Reset empties the timeline and the sandbox; Run starts over from an empty sandbox.
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(page.getByText('No calls yet.')).toBeVisible();
  await expect(page.locator('.progress')).toHaveText(/^0 of \d+ calls$/);
  await run.click();
  await expect(page.getByText('The script is done.')).toBeVisible({ timeout: 120_000 });
  expect(await json(calls.last(), 'Result')).toMatchObject({ count: 4 });

  // The sandbox can be opened in Browse.
  await page.getByRole('button', { name: 'Open the sandbox in Browse' }).click();
  await expect(page.locator('main')).toHaveAttribute('data-store', 'agent-demo');
  await expectReady(page, 60_000);
  await expect(page.locator('.list-count')).toHaveText('3 memories shown');
  await expect(page.getByTestId('browse-hidden')).toHaveText('1 superseded hidden · 4 memories stored in all');
});

test('the agent page at 360 px: the timeline fits the screen', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 780 });
  await openStore(page, 'agent-mobile');
  await page.getByRole('link', { name: 'Agent' }).click();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByText('The script is done.')).toBeVisible({ timeout: 120_000 });
  await expectNoHorizontalScroll(page);
  await page.getByRole('list', { name: 'Tool calls' }).locator('> li').nth(10).scrollIntoViewIfNeeded();
  await shot(page, 'mobile-agent', false);
});
