/**
 * Issue #52 item 2: quiet by default. A Node program's stdout holds what the program writes and
 * nothing of the library's or its dependencies' (the embedder line, hnswlib's IDBFS lines);
 * diagnostics reach a `log` option when one is given.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';

const SCRIPT = fileURLToPath(new URL('./fixtures/quiet-node.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function run(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', SCRIPT], { cwd: ROOT, env: { ...process.env, QUIET_MODELS: REAL_MODELS_DIR, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

describe('quiet by default', () => {
  beforeAll(() => requireRealModels('minilm'));

  it("stdout is the program's own, byte for byte; nothing of ours on stderr either when all is well", async () => {
    const { stdout, stderr } = await run({});
    expect(stdout).toBe('{"answer":"The standup is at 9:30"}\n');
    expect(stderr).not.toMatch(/houkai|IDBFS|jsFS/);
  }, 150_000);

  it('a log option receives the diagnostics (the embedder line, the glue lines at debug)', async () => {
    const { stdout, stderr } = await run({ QUIET_LOG: 'collect' });
    expect(stdout).toBe('{"answer":"The standup is at 9:30"}\n');
    const received = JSON.parse(stderr.trim().split('\n').at(-1)!) as [string, string][];
    expect(received).toContainEqual(['info', expect.stringMatching(/^\[houkai\] embedder Xenova\/bge-small-en-v1.5 .* running on cpu$/)]);
    expect(received.filter(([level]) => level === 'debug').map(([, m]) => m)).toContain('[hnswlib] EmscriptenFileSystemManager: Mounting IDBFS filesystem...');
  }, 150_000);
});
