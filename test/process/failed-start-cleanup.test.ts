import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataDirLockFree } from '../helpers/hub-process.js';

const scratch: string[] = [];
let blocker: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A start that fails after it took the SQLite data directory (here: its port is taken, found only
 * after migrations and the boot sweep) must give the directory back: a hub.lock naming a pid that a
 * later, unrelated process reuses would refuse every start that follows.
 */
describe('a start that fails after taking the data directory', () => {
  it('exits 1 and leaves the data-dir lock free', async () => {
    blocker = createServer();
    const busy = blocker;
    const port = await new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)));
    const dataDir = mkdtempSync(join(tmpdir(), 'session-hub-failed-start-'));
    scratch.push(dataDir);
    const failed = await runCli(['start'], { env: { SESSION_HUB_DATA: dataDir, SESSION_HUB_DATABASE_URL: '', SESSION_HUB_PORT: String(port) } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('already in use');
    expect(existsSync(join(dataDir, 'hub.db'))).toBe(true);
    expect(dataDirLockFree(dataDir)).toBe(true);
  });
});
