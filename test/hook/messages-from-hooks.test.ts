/**
 * A person's message reaches the agent through its own hooks (docs/messages.md), with real
 * `session-hub hook <flavor>` processes fed the agents' documented payloads against a real hub:
 * - Claude Code `Stop` with messages queued prints `{"decision":"block","reason":…}` (their texts in
 *   order), exits 0, the messages delivered `hook:Stop` and a turn opened with their text; with
 *   none it prints nothing and returns at once;
 * - the background `--wake` waiter (asyncRewake) waits for a message and exits 2 with the text on
 *   stderr; nothing in time, a hub away, a headless run: exit 0 with nothing; a second waiter of
 *   the same session displaces nothing;
 * - Cursor `stop` prints `followup_message`, Gemini CLI `AfterAgent` prints deny + reason.
 * The output shapes are in fixtures/messages/, each naming its source.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message, MessagesResponse } from '../../shared/protocol/messages.js';
import type { TurnWithActivity } from '../../shared/protocol/session.js';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { deadUrl, useBridgeHub } from './run-cli.js';
import { postMessage } from '../helpers/messages.js';

let hub: TestHub;
const bridge = useBridgeHub((started) => (hub = started.hub));

function fixtureOf(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', path), 'utf8')) as Record<string, unknown>;
}
const payloadOf = (path: string, overrides: Record<string, unknown> = {}) => ({ ...(fixtureOf(path).payload as Record<string, unknown>), ...overrides });
const outputShape = (path: string) => fixtureOf(path).output as Record<string, string>;

const post = (sid: string, text: string): Promise<Message> => postMessage(hub, sid, text);
const messagesOf = async (sid: string) => (await bridge.get<MessagesResponse>(`/api/sessions/${sid}/messages`)).messages;

const hook = (flavor: string, payload: unknown, env: Record<string, string> = bridge.env(), args: string[] = []) =>
  runCli(['hook', flavor, ...args], { stdin: JSON.stringify(payload), env });

/** A session the hub knows by the agent's session id: its first Stop opens it. */
async function sessionFor(flavor: string, payload: Record<string, unknown>, tag: string) {
  const first = await hook(flavor, payload);
  expect(first.code).toBe(0);
  expect(first.stdout).toBe('');
  return bridge.sessionByTag(tag);
}

describe('Claude Code Stop', () => {
  const stop = (overrides: Record<string, unknown> = {}) => payloadOf('attention/claude-stop.json', { session_id: 'stop-msg-1', stop_hook_active: false, ...overrides });

  it('with messages queued: prints the block with their texts in order, exits 0; delivered hook:Stop; a turn opens with the text', async () => {
    const session = await sessionFor('claude', stop(), 'stop-msg-1');
    const first = await post(session.sid, 'Yes, update the snapshots too.');
    const second = await post(session.sid, 'And bump the version.');

    const result = await hook('claude', stop({ stop_hook_active: true }));
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(printed).sort()).toEqual(Object.keys(outputShape('messages/claude-stop-block-output.json')).sort());
    expect(printed).toEqual({ decision: 'block', reason: 'Yes, update the snapshots too.\n\nAnd bump the version.' });

    // a hook session of an agent whose hooks can wake it
    expect((await bridge.get<MessagesResponse>(`/api/sessions/${session.sid}/messages`)).reach).toBe('wake');
    const messages = await messagesOf(session.sid);
    expect(messages.map((m) => [m.id, m.state, m.via])).toEqual([[first.id, 'delivered', 'hook:Stop'], [second.id, 'delivered', 'hook:Stop']]);
    const turns = await bridge.get<TurnWithActivity[]>(`/api/sessions/${session.sid}/turns`);
    expect(turns.some((t) => t.prompt === 'Yes, update the snapshots too.\n\nAnd bump the version.' && t.status === 'open')).toBe(true);
    expect((await bridge.sessionByTag('stop-msg-1')).attention).toBeNull();

    // taken once: the next stop prints nothing
    const after = await hook('claude', stop());
    expect(after.stdout).toBe('');
  });

  it('with none queued: prints nothing and returns at once; cancelled ones are never printed', async () => {
    const session = await sessionFor('claude', stop({ session_id: 'stop-msg-2' }), 'stop-msg-2');
    const cancelled = await post(session.sid, 'never mind');
    const deleted = await fetch(`${hub.url}/api/sessions/${session.sid}/messages/${cancelled.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${hub.tokens.operator}` } });
    expect(deleted.status).toBe(200);
    const started = Date.now();
    const result = await hook('claude', stop({ session_id: 'stop-msg-2' }));
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await messagesOf(session.sid)).map((m) => m.state)).toEqual(['cancelled']);
  });

  it('with the hub away: prints nothing, exits 0 within the bridge budget', async () => {
    const result = await hook('claude', stop({ session_id: 'stop-msg-3' }), { ...bridge.env(await deadUrl()), SESSION_HUB_HOOK_BUDGET_MS: '500' });
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('the background waiter (asyncRewake)', () => {
  const stop = (tag: string) => payloadOf('attention/claude-stop.json', { session_id: tag, stop_hook_active: false });

  it('waits, then wakes the agent with the text: exit 2, the text on stderr; delivered wake:Stop', async () => {
    const session = await sessionFor('claude', stop('wake-1'), 'wake-1');
    const waiting = hook('claude', stop('wake-1'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '30000' }, ['--wake']);
    await new Promise((resolveWait) => setTimeout(resolveWait, 800));
    const message = await post(session.sid, 'Please also run the linter.');
    const woken = await waiting;
    expect(woken).toEqual({ code: 2, stdout: '', stderr: 'Please also run the linter.\n' });
    expect((await messagesOf(session.sid))[0]).toMatchObject({ id: message.id, state: 'delivered', via: 'wake:Stop' });
  });

  it('a message already queued wakes it at once', async () => {
    const session = await sessionFor('claude', stop('wake-2'), 'wake-2');
    await post(session.sid, 'queued before the wait');
    const woken = await hook('claude', stop('wake-2'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '30000' }, ['--wake']);
    expect(woken).toMatchObject({ code: 2, stderr: 'queued before the wait\n' });
  });

  it('nothing in time: exit 0, nothing printed', async () => {
    await sessionFor('claude', stop('wake-3'), 'wake-3');
    const quiet = await hook('claude', stop('wake-3'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '300' }, ['--wake']);
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('a second waiter of the same session displaces nothing: both wait, each message goes to exactly one of them', async () => {
    const session = await sessionFor('claude', stop('wake-4'), 'wake-4');
    const env = { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '60000' };
    const first = hook('claude', stop('wake-4'), env, ['--wake']);
    await new Promise((resolveWait) => setTimeout(resolveWait, 800));
    const second = hook('claude', stop('wake-4'), env, ['--wake']);
    await new Promise((resolveWait) => setTimeout(resolveWait, 800));
    await post(session.sid, 'one');
    const woken = await Promise.race([first.then((r) => ['first', r] as const), second.then((r) => ['second', r] as const)]);
    expect(woken[1]).toMatchObject({ code: 2, stderr: 'one\n' });
    await post(session.sid, 'two');
    expect(await (woken[0] === 'first' ? second : first)).toMatchObject({ code: 2, stderr: 'two\n' });
  });

  it('headless (claude -p sets CLAUDE_CODE_ENTRYPOINT=sdk-cli, inherited by its hooks): exit 0 at once with nothing, the message left for the next stop', async () => {
    const session = await sessionFor('claude', stop('wake-6'), 'wake-6');
    await post(session.sid, 'for the next stop');
    const result = await hook('claude', stop('wake-6'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '60000', CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' }, ['--wake']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await messagesOf(session.sid))[0]).toMatchObject({ state: 'queued' });
    // the same in a terminal ("cli") wakes it
    expect(await hook('claude', stop('wake-6'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '60000', CLAUDE_CODE_ENTRYPOINT: 'cli' }, ['--wake'])).toMatchObject({ code: 2, stderr: 'for the next stop\n' });
  });

  it('SESSION_HUB_WAKE_WAIT_MS=0: no wait, exit 0 at once; a bad value: exit 0 with a note naming it, never a wake', async () => {
    const session = await sessionFor('claude', stop('wake-7'), 'wake-7');
    await post(session.sid, 'not now');
    expect(await hook('claude', stop('wake-7'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '0' }, ['--wake'])).toEqual({ code: 0, stdout: '', stderr: '' });
    const bad = await hook('claude', stop('wake-7'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: 'ten minutes' }, ['--wake']);
    expect(bad.code).toBe(0);
    expect(bad.stderr).toMatch(/SESSION_HUB_WAKE_WAIT_MS must be a whole number of milliseconds .*"ten minutes"/);
    expect((await messagesOf(session.sid))[0]).toMatchObject({ state: 'queued' });
  });

  it('the hub away for the whole wait: asked again until the wait is over, then exit 0 with a note, never a wake', async () => {
    const started = Date.now();
    const result = await hook('claude', stop('wake-5'), { ...bridge.env(await deadUrl()), SESSION_HUB_WAKE_WAIT_MS: '2500' }, ['--wake']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/waiting for messages/);
  });
});

describe('other agents', () => {
  it('Cursor stop answers followup_message with the texts', async () => {
    const payload = payloadOf('attention/cursor-stop-completed.json');
    const session = await sessionFor('cursor', payload, String(payload.conversation_id));
    // its hooks cannot wake it: a reply waits for its next stop
    expect((await bridge.get<MessagesResponse>(`/api/sessions/${session.sid}/messages`)).reach).toBe('stop');
    await post(session.sid, 'Now write the changelog entry.');
    const result = await hook('cursor', payload);
    expect(JSON.parse(result.stdout)).toEqual({ followup_message: 'Now write the changelog entry.' });
    expect(Object.keys(outputShape('messages/cursor-stop-followup-output.json'))).toEqual(['followup_message']);
  });

  it('Gemini CLI AfterAgent answers deny with the texts as reason', async () => {
    const payload = payloadOf('attention/gemini-after-agent.json');
    const session = await sessionFor('gemini', payload, String(payload.session_id));
    await post(session.sid, 'Publish it now.');
    const result = await hook('gemini', payload);
    expect(JSON.parse(result.stdout)).toEqual({ decision: 'deny', reason: 'Publish it now.' });
    expect(outputShape('messages/gemini-after-agent-deny-output.json').decision).toBe('deny');
  });
});
