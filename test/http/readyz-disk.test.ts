/**
 * issue 33.6 (e): /readyz answered 200 on a full disk (an empty write transaction needs no space).
 * On SQLite it now also reads the data directory's free space (statfs) against
 * SESSION_HUB_READY_MIN_FREE_BYTES and answers 503 naming the directory and the bytes free. The
 * real filesystem is read: the hub is told it needs more than any disk here has.
 */
import { describe, expect, it } from 'vitest';
import { statfsSync } from 'node:fs';
import { diskSpaceProblem } from '../../hub/store/disk-space.js';
import { closeTestHubsAfterEach, startTestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();

describe('/readyz and the data directory free space', () => {
  it('503 naming the directory and the space while the data directory has less free space than required; 200 otherwise', async () => {
    const sqlite = process.env.SESSION_HUB_TEST_STORE !== 'postgres';
    const short = await startTestHub({ config: { readyMinFreeBytes: Number.MAX_SAFE_INTEGER } });
    const answer = await fetch(`${short.url}/readyz`);
    const body = (await answer.json()) as { ok: boolean; reason?: string };
    if (sqlite) {
      expect(answer.status).toBe(503);
      expect(body.reason).toMatch(new RegExp(`^the data directory .*${short.dataDir.split('/').pop()!} has \\d+ bytes free, under the ${Number.MAX_SAFE_INTEGER} required`));
    } else {
      // PostgreSQL keeps its data elsewhere: the data directory is not its disk
      expect(answer.status).toBe(200);
    }
    const roomy = await startTestHub();
    expect((await fetch(`${roomy.url}/readyz`)).status).toBe(200);
  });

  it('the rule: free space as an unprivileged writer sees it, against the minimum; a missing directory is named', () => {
    const stats = statfsSync('.');
    const free = stats.bavail * stats.bsize;
    expect(diskSpaceProblem('.', Math.max(0, free - 1024 * 1024))).toBeUndefined();
    expect(diskSpaceProblem('.', free + 1024 * 1024 * 1024)).toMatch(/has \d+ bytes free, under the \d+ required/);
    expect(diskSpaceProblem('/no/such/dir', 1)).toMatch(/^the data directory \/no\/such\/dir cannot be checked: ENOENT/);
  });
});
