/**
 * A session's messages go only to its own hook processes (issue 33, point 3), with real
 * `session-hub hook claude` processes on one runner token: the session's hooks share its taker key
 * (their spool dir on the agent's machine); another session's process on the same token, on another
 * machine (its own spool dir), naming this session's agent session id, is refused with a clear note:
 * its Stop prints nothing, its waiter is refused and displaces nothing, the message stays queued for
 * the session's own hooks. The page's API shows which process took each message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message, MessagesResponse } from '../../shared/protocol/messages.js';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { postMessage } from '../helpers/messages.js';
import { stopDrainers, useBridgeHub } from './run-cli.js';

let hub: TestHub;
const bridge = useBridgeHub((started) => (hub = started.hub));

/** Another machine on the same hub and token: its own spool dir, so none of this session's keys. */
const elsewhere: string[] = [];
function otherMachine(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'session-hub-other-machine-'));
  elsewhere.push(dir);
  return { ...bridge.env(), SESSION_HUB_SPOOL_DIR: dir };
}
afterEach(() => {
  for (const dir of elsewhere.splice(0)) {
    stopDrainers(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

const stop = (tag: string) => ({ session_id: tag, hook_event_name: 'Stop', stop_hook_active: false, transcript_path: '/nonexistent/t.jsonl', cwd: '/work/project' });
const hook = (payload: unknown, env: Record<string, string>, args: string[] = []) => runCli(['hook', 'claude', ...args], { stdin: JSON.stringify(payload), env });
const messagesOf = async (sid: string): Promise<Message[]> => (await bridge.get<MessagesResponse>(`/api/sessions/${sid}/messages`)).messages;

async function ownSession(tag: string) {
  const first = await hook(stop(tag), bridge.env());
  expect(first).toMatchObject({ code: 0, stdout: '' });
  return bridge.sessionByTag(tag);
}

describe("another session's hook on the same token", () => {
  it('its Stop naming this session prints nothing and says why; the message stays queued; the own Stop takes it, the page shows which process', async () => {
    const session = await ownSession('takers-1');
    const message = await postMessage(hub, session.sid, 'for the real agent');

    const intruder = await hook(stop('takers-1'), otherMachine());
    expect(intruder.code).toBe(0);
    expect(intruder.stdout).toBe('');
    expect(intruder.stderr).toMatch(/the hub gave this hook no messages: not this session's taker/);
    expect((await messagesOf(session.sid))[0]).toMatchObject({ id: message.id, state: 'queued', takenBy: null });

    const own = await hook(stop('takers-1'), bridge.env());
    expect(JSON.parse(own.stdout)).toEqual({ decision: 'block', reason: 'for the real agent' });
    const taken = (await messagesOf(session.sid))[0]!;
    expect(taken).toMatchObject({ state: 'delivered', via: 'hook:Stop', takenBy: expect.stringMatching(/^hook pid \d+ on \S+/) });
  });

  it('its waiter is refused at once with a note, and the own waiter, already waiting, is still woken with the message', async () => {
    const session = await ownSession('takers-2');
    const env = { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '60000' };
    const own = hook(stop('takers-2'), env, ['--wake']);
    await new Promise((resolveWait) => setTimeout(resolveWait, 800));

    const started = Date.now();
    const intruder = await hook(stop('takers-2'), { ...otherMachine(), SESSION_HUB_WAKE_WAIT_MS: '60000' }, ['--wake']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(intruder.code).toBe(0);
    expect(intruder.stderr).toMatch(/waiting for messages: 403 .*not this session's taker/);

    await postMessage(hub, session.sid, 'wake up');
    expect(await own).toMatchObject({ code: 2, stderr: 'wake up\n' });
    expect((await messagesOf(session.sid))[0]).toMatchObject({ state: 'delivered', via: 'wake:Stop', takenBy: expect.stringMatching(/^hook pid \d+ on /) });
  });

  it("a session opened by another machine's hooks is that machine's: this one's hooks on the same token cannot take its messages", async () => {
    const there = otherMachine();
    expect(await hook(stop('takers-3'), there)).toMatchObject({ code: 0, stdout: '' });
    const session = await bridge.sessionByTag('takers-3');
    await postMessage(hub, session.sid, 'for the other machine');
    const here = await hook(stop('takers-3'), bridge.env());
    expect(here.stdout).toBe('');
    expect((await messagesOf(session.sid))[0]).toMatchObject({ state: 'queued' });
    expect(JSON.parse((await hook(stop('takers-3'), there)).stdout)).toEqual({ decision: 'block', reason: 'for the other machine' });
  });
});
