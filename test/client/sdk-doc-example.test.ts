/**
 * Issue 22 point 4: docs/sdk.md's runnable start runs as written. Its first ```js block is saved in
 * the repository root (where it says to save it) and run with node against a real hub, the URL and
 * token from the environment as the doc says; the session it opens must end up ended (not "Lost
 * contact") with its turn and usage recorded.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();

const ROOT = resolve(import.meta.dirname, '..', '..');

function docExample(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'sdk.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/sdk.md has no ```js block');
  return block;
}

describe('docs/sdk.md', () => {
  it('its example takes the hub from the environment, runs, and leaves its session ended', async () => {
    const example = docExample();
    expect(example).toContain('process.env.SESSION_HUB_URL');
    const hub = await startTestHub();
    const file = join(ROOT, `try-sdk-${process.pid}-${Date.now()}.mjs`);
    writeFileSync(file, example);
    try {
      // not spawnSync: the hub runs in this process and must answer meanwhile (a failure rejects with the output)
      const run = await promisify(execFile)(process.execPath, [file], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', SESSION_HUB_URL: hub.url, SESSION_HUB_TOKEN: hub.tokens.runner },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.stdout).toContain("title: 'Fix the tests'");
    } finally {
      rmSync(file, { force: true });
    }
    const listed = (await (await fetch(`${hub.url}/api/sessions`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } })).json()) as {
      sessions: { sid: string; title: string; activity: string; lifecycle: { state: string }; usage: { inputTokens: number } }[];
    };
    const made = listed.sessions.filter((s) => s.title === 'Fix the tests');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ activity: 'ended', lifecycle: { state: 'ended' }, usage: { inputTokens: 1200 } });
  });
});
