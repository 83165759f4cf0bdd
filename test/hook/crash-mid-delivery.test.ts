import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import type { TestHub } from '../helpers/hub.js';
import { fixture, gatedUrl, hubSpool, sendHooks, stopDrainers, useBridgeHub } from './run-cli.js';

const CLI = resolve(import.meta.dirname, '../../dist/hub/cli.js');

let hub: TestHub;
let spoolDir: string;
const { env, get, sessionByTag } = useBridgeHub((started) => ({ hub, spoolDir } = started));

const claude = fixture('claude-session.json');

/** Waits (up to 3 s) for the drainer the unreachable hub made the hook start, and kills it. */
async function stopTheDrainer(dir: string): Promise<void> {
  const drainerLocks = () => readdirSync(dir, { recursive: true }).map(String).filter((name) => /drainer-.*\.lock$/.test(name));
  for (let waited = 0; waited < 3000 && drainerLocks().length === 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  stopDrainers(dir);
}
const tag = claude[0]!.session_id as string;

describe('a hook process killed in the middle of delivering the spool', () => {
  it('does not open a second run when the next hook delivers the spool again', async () => {
    // the hub was down: SessionStart, a prompt and many tool calls are spooled
    const gate = await gatedUrl(hub.url);
    await gate.close();
    await sendHooks('claude', claude.slice(0, 3), env(gate.url));
    // those calls started a drainer (the hub was unreachable): left running, it delivers the spool
    // itself once the gate opens, and the kill below can land before the hook process appended its
    // own event (seen: 62 lines, 2 runs in 8 on a loaded machine). Stopped, the hook process is the
    // one delivering.
    await stopTheDrainer(spoolDir);
    await gate.open();
    const spoolFile = join(hubSpool(env(gate.url)), 'spool-claude.jsonl');
    const [start, prompt, tool] = readFileSync(spoolFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const payload = tool!.payload as Record<string, unknown>;
    const tools = Array.from({ length: 60 }, (_, i) => ({ ...tool, id: `spooled-tool-${i}`, seq: 3 + i, payload: { ...payload, tool_use_id: `toolu_spooled_${i}` } }));
    writeFileSync(spoolFile, [start, prompt, ...tools].map((event) => JSON.stringify(event)).join('\n') + '\n');

    // the hub is back; a hook process starts delivering and is killed once the prompt went through,
    // before the hub's answer reaches it (held by the gate: else, on a loaded machine, it could read
    // the answer and rewrite its spool before the kill lands)
    gate.holdAnswers(true);
    const dashboard = await DashboardClient.connect({ url: hub.url, token: hub.tokens.dashboard });
    await dashboard.subscribe();
    const child = spawn(process.execPath, [CLI, 'hook', 'claude'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env(gate.url) }, stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    dashboard.on('update', (event) => {
      if (event.body.t === 'turn') child.kill('SIGKILL');
    });
    child.stdin.end(JSON.stringify({ ...claude[2], tool_use_id: 'toolu_last' }));
    await exited;
    dashboard.close();
    // killed before it rewrote the spool: everything is still there (62 spooled, its own tool call)
    expect(readFileSync(spoolFile, 'utf8').trim().split('\n')).toHaveLength(63);

    gate.holdAnswers(false);
    // the next hook delivers what is left (again, from where the spool says)
    await sendHooks('claude', [claude[5]!], env(gate.url));
    await gate.close();
    const session = await sessionByTag(tag);
    // one run only: a second session-start would have superseded the first run and aborted its turn
    expect(session.lifecycle).toMatchObject({ state: 'running', lastRun: { status: 'running' } });
    const turns = await get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.map((t) => [t.prompt, t.status])).toEqual([['Add a --verbose flag to the CLI', 'completed']]);
    expect(turns[0]!.activities).toHaveLength(61);
  });
});
