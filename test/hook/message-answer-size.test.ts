/**
 * What is marked delivered is what the agent was handed (issue 33, point 4), with real
 * `session-hub hook claude` processes: a queue bigger than one answer (MESSAGE_ANSWER_MAX_BYTES,
 * 256 KiB of text) is handed over in answers sized to fit, oldest first; what did not fit stays
 * queued for the next stop (or the next wake), and each answer arrives within the bridge's budget.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGE_ANSWER_MAX_BYTES, type MessagesResponse } from '../../shared/protocol/messages.js';
import { runCli } from '../helpers/cli.js';
import type { TestHub } from '../helpers/hub.js';
import { postMessage } from '../helpers/messages.js';
import { useBridgeHub } from './run-cli.js';

let hub: TestHub;
const bridge = useBridgeHub((started) => (hub = started.hub));

const stop = (tag: string) => ({ session_id: tag, hook_event_name: 'Stop', stop_hook_active: false, transcript_path: '/nonexistent/t.jsonl', cwd: '/work/project' });
const hook = (payload: unknown, env: Record<string, string> = bridge.env(), args: string[] = []) => runCli(['hook', 'claude', ...args], { stdin: JSON.stringify(payload), env });
const statesOf = async (sid: string) => (await bridge.get<MessagesResponse>(`/api/sessions/${sid}/messages`)).messages.map((m) => m.state);

/** 100 KiB of one letter: three fit no answer together (300 KiB), two do. */
const big = (letter: string) => letter.repeat(100 * 1024);

describe('an answer sized to fit', () => {
  it('a Stop with more queued than one answer holds prints the oldest that fit; the rest stay queued and go at the next stop', async () => {
    expect(MESSAGE_ANSWER_MAX_BYTES).toBe(256 * 1024);
    expect(await hook(stop('size-1'))).toMatchObject({ code: 0, stdout: '' });
    const session = await bridge.sessionByTag('size-1');
    for (const letter of ['a', 'b', 'c', 'd', 'e']) await postMessage(hub, session.sid, big(letter));

    const first = await hook(stop('size-1'));
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ decision: 'block', reason: `${big('a')}\n\n${big('b')}` });
    expect(await statesOf(session.sid)).toEqual(['delivered', 'delivered', 'queued', 'queued', 'queued']);

    expect(JSON.parse((await hook(stop('size-1'))).stdout)).toEqual({ decision: 'block', reason: `${big('c')}\n\n${big('d')}` });
    expect(JSON.parse((await hook(stop('size-1'))).stdout)).toEqual({ decision: 'block', reason: big('e') });
    expect(await statesOf(session.sid)).toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
    expect((await hook(stop('size-1'))).stdout).toBe('');
  });

  it('the waking hook too: one answer of what fits, the rest for the next', async () => {
    expect(await hook(stop('size-2'))).toMatchObject({ code: 0, stdout: '' });
    const session = await bridge.sessionByTag('size-2');
    for (const letter of ['x', 'y', 'z']) await postMessage(hub, session.sid, big(letter));
    const woken = await hook(stop('size-2'), { ...bridge.env(), SESSION_HUB_WAKE_WAIT_MS: '30000' }, ['--wake']);
    expect(woken).toMatchObject({ code: 2, stderr: `${big('x')}\n\n${big('y')}\n` });
    expect(await statesOf(session.sid)).toEqual(['delivered', 'delivered', 'queued']);
  });
});
