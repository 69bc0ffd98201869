/**
 * Bring your chats, in the app (#53 item 6): a ChatGPT export's zip dropped on the window opens a
 * preview (conversations, new messages, who said them, when), imports with progress, and the
 * messages are found by a question in other words, each with its speaker; the same file again
 * has nothing new; a malformed export is refused naming its line, and the store is unchanged.
 */
import { strToU8, zipSync } from 'fflate';
import { expect, test } from 'playwright/test';
import { chatgptExport, jsonlExport, SAMPLE_CONVERSATIONS } from '../test/helpers/chat-exports.ts';
import { dropFile, expectNoHorizontalScroll, guardPages, memoryCount, openStore, shot } from './app-helpers.ts';

guardPages();

const convs = SAMPLE_CONVERSATIONS;

test('a ChatGPT export dropped on the window: preview, import, found by a question; again, nothing new; a broken file changes nothing', async ({ page }) => {
  await openStore(page, 'chats');
  const zip = zipSync({ 'chat.html': strToU8('<html></html>'), 'conversations.json': strToU8(chatgptExport(convs)) });
  await dropFile(page, 'chatgpt-export.zip', zip, 'application/zip');
  const dialog = page.getByRole('dialog', { name: 'Import your chats' });
  const preview = dialog.getByLabel('Chat export contents');
  await expect(preview).toContainText('ChatGPT export');
  await expect(preview).toContainText('5 new');
  await expect(preview).toContainText('User, ChatGPT');
  await expect(preview).toContainText('2 without text left out');
  await shot(page, 'chat-import-preview', false);
  await dialog.getByRole('button', { name: 'Import 5 messages' }).click();
  const done = page.getByRole('dialog', { name: 'Chats imported' });
  await expect(done).toContainText('5 imported');
  await shot(page, 'chat-import-done', false);
  await done.getByRole('button', { name: 'Done' }).click();
  await expect.poll(() => memoryCount(page)).toBe(5);

  await page.getByLabel('Search your memories').fill('which hotel did we book in Portugal?');
  await expect(page.locator('.result').first()).toContainText('User: We booked the Hotel Mirador');
  await shot(page, 'chat-import-search', false);

  // The same export again, through the picker: nothing new.
  await page.locator('#import-chats-file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(chatgptExport(convs)) });
  await expect(preview).toContainText('5 already imported');
  await expect(dialog.getByRole('button', { name: 'Nothing new to import' })).toBeDisabled();
  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoHorizontalScroll(page);
  await page.setViewportSize({ width: 1280, height: 860 });
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // A JSONL whose second line is cut: refused, naming the line; nothing written.
  const lines = jsonlExport(convs).split('\n');
  lines[1] = '{"speaker": "Assistant", "time": 1714000060, "text": "cut';
  await page.locator('#import-chats-file').setInputFiles({ name: 'history.jsonl', mimeType: 'application/json', buffer: Buffer.from(lines.join('\n')) });
  const refused = page.getByRole('dialog', { name: 'Not a chat export this app can read' });
  await expect(refused.getByRole('alert')).toContainText('line 2');
  await expect(refused.getByRole('alert')).toContainText('INVALID_CHATS');
  await refused.getByRole('button', { name: 'Close' }).click();
  await expect.poll(() => memoryCount(page)).toBe(5);
});
