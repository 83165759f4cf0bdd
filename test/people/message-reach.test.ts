/**
 * When does a person's reply reach a hook session's agent (docs/messages.md, "When a reply reaches
 * the agent")? Claude Code's waking hook (asyncRewake) waits only `wakeHook.waitMs` (10 minutes)
 * after each stop: within it GET …/messages says `wake` with the moment it gives up; past it `stop`
 * (nothing can wake the idle agent any more), never "now". A real hub on a manual clock, fed the
 * real Claude Code payloads (fixtures/claude-session.json) over POST /api/hooks.
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

describe('how a reply reaches an idle Claude Code session', () => {
  it('wakes it within the wait after its stop, names when that ends, and says "next stop" after it', async () => {
    await hook('SessionStart');
    await hook('UserPromptSubmit');
    // a turn running: its stop starts the waiter, no end to name yet
    expect(await reach()).toEqual({ reach: 'wake' });

    clock.advance(30_000);
    const stoppedAt = clock.now();
    await hook('Stop');
    expect(await reach()).toEqual({ reach: 'wake', wakeUntil: stoppedAt + WAIT_MS });

    clock.advance(WAIT_MS - 1);
    expect((await reach()).reach).toBe('wake');
    clock.advance(1);
    // the waiter gave up: nothing wakes the agent until the person types in its terminal
    expect(await reach()).toEqual({ reach: 'stop', wakeUntil: stoppedAt + WAIT_MS });

    // the next turn's stop starts a new waiter
    await hook('UserPromptSubmit');
    expect(await reach()).toEqual({ reach: 'wake' });
    clock.advance(5_000);
    await hook('Stop');
    expect(await reach()).toEqual({ reach: 'wake', wakeUntil: clock.now() + WAIT_MS });
  });
});
