/**
 * When does a person's reply reach a hook session's agent (docs/messages.md, "When a reply reaches
 * the agent")? GET …/messages says `wake` between turns only while a background waiter (Claude
 * Code's asyncRewake hook) waits on the hub now, with the moment it gives up; a stored stop with no
 * waiter, a waiter whose connection dropped or whose wait ran out: `stop`, never "now" (issue 34).
 * A real hub on a manual clock, fed the real Claude Code payloads (fixtures/claude-session.json)
 * over POST /api/hooks, and real waits over POST /api/hooks/wait.
 */
import { describe, expect, it } from 'vitest';
import { getFlavor } from '../../shared/flavors.js';
import type { MessagesResponse } from '../../shared/protocol/messages.js';
import type { ListSessionsResponse } from '../../shared/protocol/http.js';
import { ManualClock } from '../../hub/clock.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { fixture } from '../hook/run-cli.js';

const claude = fixture('claude-session.json');
const tag = claude[0]!.session_id as string;
const payload = (event: string) => claude.find((p) => p.hook_event_name === event)!;
const WAIT_MS = getFlavor('claude')!.hookConfig!.wakeHook!.waitMs;

let hub: TestHub;
let clock: ManualClock;
useTestHub((started) => void (hub = started), () => ({ clock: (clock = new ManualClock(1_700_000_000_000)) }));

let eventNo = 0;
async function hook(event: string): Promise<void> {
  const body = { events: [{ id: `reach-${++eventNo}`, flavor: 'claude', firedAt: clock.now(), seq: eventNo, payload: payload(event) }] };
  const response = await fetch(`${hub.url}/api/hooks`, { method: 'POST', headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status, await response.text()).toBe(200);
}

async function reach(): Promise<Omit<MessagesResponse, 'messages' | 'sid'>> {
  const headers = { authorization: `Bearer ${hub.tokens.dashboard}` };
  const { sessions } = (await (await fetch(`${hub.url}/api/sessions`, { headers })).json()) as ListSessionsResponse;
  const sid = sessions.find((s) => s.tag === tag)!.sid;
  const { reach, wakeUntil } = (await (await fetch(`${hub.url}/api/sessions/${sid}/messages`, { headers })).json()) as MessagesResponse;
  return wakeUntil === undefined ? { reach } : { reach, wakeUntil };
}

const WAIT = { flavor: 'claude', tag, event: 'Stop', taker: { key: 'k'.repeat(40), process: 'reach-test' } };

/** A background waiter (the `--wake` hook's request) on the hub; abort() drops its connection, as a killed waiter does. */
function startWaiter(waitMs: number): { ended: Promise<unknown>; abort(): void } {
  const controller = new AbortController();
  const ended = fetch(`${hub.url}/api/hooks/wait`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.runner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...WAIT, waitMs }),
    signal: controller.signal,
  }).then((response) => response.json(), (error: unknown) => error);
  return { ended, abort: () => controller.abort() };
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within 5 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('how a reply reaches an idle Claude Code session', () => {
  it('says wake only while a waiter waits on the hub now, naming when it gives up; a stop alone is no waiter', async () => {
    await hook('SessionStart');
    await hook('UserPromptSubmit');
    // a turn running: its stop starts the waiter, no end to name yet
    expect(await reach()).toEqual({ reach: 'wake' });

    clock.advance(30_000);
    await hook('Stop');
    // the stop was stored, but no waiter waits (never started, or killed): no clock's guess of "now"
    expect(await reach()).toEqual({ reach: 'stop' });

    const waiter = startWaiter(WAIT_MS);
    const startedAt = clock.now();
    await eventually(async () => (await reach()).reach === 'wake');
    expect(await reach()).toEqual({ reach: 'wake', wakeUntil: startedAt + WAIT_MS });

    // its connection dropped (the waiting process killed): the hub stops counting it at once
    waiter.abort();
    await waiter.ended;
    await eventually(async () => (await reach()).reach === 'stop');
    expect(await reach()).toEqual({ reach: 'stop' });
  });

  it('a waiter whose wait ran out is no longer counted', async () => {
    await hook('SessionStart');
    await hook('Stop');
    const waiter = startWaiter(300);
    await eventually(async () => (await reach()).reach === 'wake');
    expect(await waiter.ended).toEqual({ messages: [], replaced: false });
    expect(await reach()).toEqual({ reach: 'stop' });
  });
});
