/**
 * The parts of delivery that are pure functions: which filter names an event matches (attention by
 * the presence of the field the attention state adds to update-session bodies), the readable line,
 * the session's name, the back-off, and the signature a receiver checks.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import { describeEvent, kindsOf, matchesFilter, primaryKind } from '../../hub/webhooks/event-kinds.js';
import { retryDelay } from '../../hub/webhooks/deliverer.js';
import { signatureMatches, signBody } from '../../hub/webhooks/payload.js';
import { labelOf } from '../../hub/webhooks/session-label.js';

const lifecycle = (state: 'running' | 'idle' | 'ended' | 'archived', reason: string | null = null) => ({ state, since: 1, reason, by: 'runner' as const, lastRun: null });
const update = (fields: Partial<Omit<Extract<UpdateBody, { t: 'update-session' }>, 't' | 'sid'>> & Record<string, unknown> = {}): UpdateBody =>
  ({ t: 'update-session', sid: 's1', metadata: null, agentState: null, lifecycle: null, presence: null, ...fields }) as UpdateBody;
const turn = (status: 'open' | 'completed' | 'error', prompt: string | null, response: string | null = null): UpdateBody => ({
  t: 'turn',
  sid: 's1',
  turn: { turnId: 't1', sid: 's1', kind: 'prompt', prompt, promptTruncated: false, status, openedAt: 1, closedAt: status === 'open' ? null : 2, response, activityCount: 0, usage: [] },
});
const who = { name: 'Fix the login', agent: 'Claude Code' };

describe('filter names', () => {
  it('names each kind of update, and matches `all` and the chosen names only', () => {
    expect(kindsOf(update({ lifecycle: lifecycle('ended') }))).toEqual(['session-ended']);
    expect(kindsOf(update({ lifecycle: lifecycle('archived') }))).toEqual(['session-archived']);
    expect(kindsOf(update({ lifecycle: lifecycle('idle') }))).toEqual([]);
    expect(kindsOf(turn('open', 'hi'))).toEqual(['turn']);
    expect(kindsOf(update({ presence: { active: true, activeAt: 1, thinking: false } }))).toEqual([]);
    expect(primaryKind(update({ presence: { active: true, activeAt: 1, thinking: false } }))).toBe('update');

    const ended = update({ lifecycle: lifecycle('ended') });
    expect(matchesFilter(ended, ['all'])).toBe(true);
    expect(matchesFilter(ended, ['session-ended', 'turn'])).toBe(true);
    expect(matchesFilter(ended, ['session-created', 'attention'])).toBe(false);
  });

  it('matches `attention` on an update-session body that sets attention', () => {
    const asking = update({ attention: { value: { kind: 'permission', since: 5, message: 'Claude needs your permission to use Bash', tool: 'Bash' } } });
    expect(kindsOf(asking)).toEqual(['attention']);
    expect(matchesFilter(asking, ['attention'])).toBe(true);
    // cleared ({ value: null }), unchanged (null) or absent: not a ping
    expect(kindsOf(update({ attention: { value: null } }))).toEqual([]);
    expect(kindsOf(update({ attention: null }))).toEqual([]);
    expect(matchesFilter(update(), ['attention'])).toBe(false);
    // an end that also clears or sets attention is both
    expect(kindsOf(update({ lifecycle: lifecycle('ended'), attention: { value: { kind: 'done', since: 5, message: null, tool: null } } }))).toEqual(['session-ended', 'attention']);
  });
});

describe('the readable line', () => {
  it('says what happened in plain words', () => {
    expect(describeEvent({ t: 'session-created', sid: 's1' } as UpdateBody, who)).toBe('Claude Code session "Fix the login" started');
    expect(describeEvent(update({ lifecycle: lifecycle('ended', 'user quit') }), who)).toBe('Claude Code session "Fix the login" ended (user quit)');
    expect(describeEvent(update({ lifecycle: lifecycle('archived') }), who)).toBe('Claude Code session "Fix the login" was archived');
    expect(describeEvent(turn('open', 'make\n the tests   pass'), who)).toBe('Claude Code session "Fix the login" started a turn "make the tests pass"');
    expect(describeEvent(turn('error', 'x', null), who)).toBe('Claude Code session "Fix the login" finished a turn (error)');
    const permission = update({ attention: { value: { kind: 'permission', since: 5, message: 'Claude needs your permission to use Bash', tool: 'Bash' } } });
    expect(describeEvent(permission, who)).toBe('Claude Code session "Fix the login" wants permission to use Bash: Claude needs your permission to use Bash');
    expect(describeEvent(update({ attention: { value: { kind: 'question', since: 5, message: null, tool: null } } }), who)).toBe('Claude Code session "Fix the login" is waiting for your answer');
    expect(describeEvent(update({ attention: { value: { kind: 'failed', since: 5, message: 'rate limited', tool: null } } }), who)).toBe('Claude Code session "Fix the login" stopped on an error: rate limited');
    expect(describeEvent(turn('open', 'y'.repeat(500)), who).length).toBeLessThan(200);
  });

  it('names a session by its title, else its tag, else the last part of its working directory', () => {
    const base = { sid: 'sid-1', flavor: 'gemini', tag: 'my-tag', metadata: { title: 'Refactor', path: '/home/me/projects/shop/' } };
    expect(labelOf(base, 'sid-1')).toEqual({ name: 'Refactor', agent: 'Gemini CLI' });
    expect(labelOf({ ...base, metadata: { path: '/home/me/projects/shop/' } }, 'sid-1').name).toBe('my-tag');
    expect(labelOf({ ...base, tag: '', metadata: { path: '/home/me/projects/shop/' } }, 'sid-1').name).toBe('shop');
    expect(labelOf({ ...base, tag: '', metadata: { path: 'C:\\work\\api' } }, 'sid-1').name).toBe('api');
    expect(labelOf({ ...base, tag: '', metadata: {} }, 'sid-1').name).toBe('sid-1');
    expect(labelOf({ ...base, flavor: 'some-new-agent' }, 'sid-1').agent).toBe('some-new-agent');
  });
});

describe('retries and signatures', () => {
  it('doubles the wait from retryMs up to retryMaxMs', () => {
    expect([1, 2, 3, 4, 9, 10, 11, 60].map((failures) => retryDelay(failures, 1_000, 300_000))).toEqual([1_000, 2_000, 4_000, 8_000, 256_000, 300_000, 300_000, 300_000]);
  });

  it('signs with HMAC-SHA256 of the raw body, and a receiver\'s check refuses any other body, secret or header', () => {
    const body = '{"id":"e1","text":"hi"}';
    const header = signBody('whsec_k', body);
    expect(header).toBe(`sha256=${createHmac('sha256', 'whsec_k').update(body).digest('hex')}`);
    expect(signatureMatches('whsec_k', body, header)).toBe(true);
    expect(signatureMatches('whsec_k', `${body} `, header)).toBe(false);
    expect(signatureMatches('whsec_other', body, header)).toBe(false);
    expect(signatureMatches('whsec_k', body, undefined)).toBe(false);
    expect(signatureMatches('whsec_k', body, 'sha256=00')).toBe(false);
  });
});
