import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { fixture, hubReader, sendHooks } from './run-cli.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

let hub: TestHub;
let spoolDir: string;
beforeEach(async () => {
  hub = await startTestHub();
  spoolDir = mkdtempSync(join(tmpdir(), 'session-hub-spool-'));
});
afterEach(async () => {
  await hub.close();
  rmSync(spoolDir, { recursive: true, force: true });
});

const env = (url = hub.url) => ({ SESSION_HUB_URL: url, SESSION_HUB_TOKEN: hub.tokens.runner, SESSION_HUB_SPOOL_DIR: spoolDir });
const { get, sessionByTag } = hubReader(() => hub);
const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;

async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  await new Promise((resolveClose) => server.close(resolveClose));
  return `http://127.0.0.1:${port}`;
}

describe('a hook process killed in the middle of delivering the spool', () => {
  it('does not open a second run when the next hook delivers the spool again', async () => {
    // the hub was down: SessionStart, a prompt and many tool calls are spooled
    const down = await deadUrl();
    await sendHooks('claude', claude.slice(0, 3), env(down));
    const spoolFile = join(spoolDir, 'spool-claude.jsonl');
    const [start, prompt, tool] = readFileSync(spoolFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const tools = Array.from({ length: 60 }, (_, i) => ({ ...tool, id: `spooled-tool-${i}`, toolUseId: `toolu_spooled_${i}` }));
    writeFileSync(spoolFile, [start, prompt, ...tools].map((event) => JSON.stringify(event)).join('\n') + '\n');

    // the hub is back; a hook process starts delivering and is killed once the prompt went through
    const dashboard = await DashboardClient.connect({ url: hub.url, token: hub.tokens.dashboard });
    await dashboard.subscribe();
    const child = spawn(process.execPath, [CLI, 'hook', 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env() }, stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    dashboard.on('update', (event) => {
      if (event.body.t === 'turn') child.kill('SIGKILL');
    });
    child.stdin.end(JSON.stringify({ ...claude[2], tool_use_id: 'toolu_last' }));
    await exited;
    dashboard.close();
    // killed before it rewrote the spool: everything is still there (62 spooled, its own tool call)
    expect(readFileSync(spoolFile, 'utf8').trim().split('\n')).toHaveLength(63);

    // the next hook delivers what is left (again, from where the spool says)
    await sendHooks('claude', [claude[5]!], env());
    const session = await sessionByTag(tag);
    // one run only: a second session-start would have superseded the first run and aborted its turn
    expect(session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.map((t) => [t.prompt, t.status])).toEqual([['Add a --verbose flag to the CLI', 'completed']]);
    expect(turns[0]!.activities).toHaveLength(61);
  });
});
