/**
 * Issue 26 point 14: the start-up link carries a one-time code, never a token; the code is
 * exchanged by POST /api/sign-in/code, works once, and expires after 10 minutes. On a hub with
 * stored tokens the exchange makes a new admin token (origin `sign-in-link`, 30 days); with
 * SESSION_HUB_TOKENS it hands over the configured admin token.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../hub/clock.js';
import { SIGN_IN_CODE_TTL_MS } from '../../hub/services/sign-in-codes.js';
import { closeTestHubsAfterEach, startTestHub, type TestHub } from '../helpers/hub.js';

closeTestHubsAfterEach();

const codeOf = (link: string) => new URL(link).searchParams.get('code') ?? '';
const exchange = (hub: TestHub, body: unknown) =>
  fetch(`${hub.url}/api/sign-in/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const whoami = (hub: TestHub, token: string) => fetch(`${hub.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } });

describe('POST /api/sign-in/code', () => {
  it('on stored tokens: makes an admin token once per code; the link itself holds no token', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const hub = await startTestHub({ clock, config: { tokens: '' } });
    const link = hub.signInLink.url;
    expect(link).toMatch(new RegExp(`^${hub.url}/\\?code=[A-Za-z0-9_-]{20,}$`));
    for (const generated of hub.generatedTokens) expect(link).not.toContain(generated.token);

    const first = await exchange(hub, { code: codeOf(link) });
    expect(first.status).toBe(200);
    const granted = (await first.json()) as { token: string; role: string; namespace: string; expiresAt: number };
    expect(granted).toMatchObject({ role: 'admin', namespace: 'default', expiresAt: clock.now() + 30 * 86_400_000 });
    expect(await (await whoami(hub, granted.token)).json()).toEqual({ role: 'admin', namespace: 'default' });

    // listed like any token, with where it came from
    const list = (await (await fetch(`${hub.url}/api/tokens`, { headers: { authorization: `Bearer ${granted.token}` } })).json()) as { tokens: { origin: string }[] };
    expect(list.tokens.filter((t) => t.origin === 'sign-in-link')).toHaveLength(1);

    // used once: a second exchange is refused and makes nothing
    const again = await exchange(hub, { code: codeOf(link) });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { message: string }).message).toContain('used already or has expired');
  });

  it('labels the token it makes with the day and the device, so "allowed by" names something a person knows', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const hub = await startTestHub({ clock, config: { tokens: '' } });
    const phone = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
    const answer = await fetch(`${hub.url}/api/sign-in/code`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': phone }, body: JSON.stringify({ code: codeOf(hub.signInLink.url) }) });
    const granted = (await answer.json()) as { token: string };
    const list = (await (await fetch(`${hub.url}/api/tokens`, { headers: { authorization: `Bearer ${granted.token}` } })).json()) as { tokens: { origin: string; label: string | null }[] };
    expect(list.tokens.find((t) => t.origin === 'sign-in-link')?.label).toBe('sign-in link, 14 Nov, Chrome on Android');
  });

  it('expires after 10 minutes; a made-up code or a bad body is refused with a reason', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const hub = await startTestHub({ clock });
    const late = hub.issueSignInLink();
    clock.advance(SIGN_IN_CODE_TTL_MS);
    expect((await exchange(hub, { code: codeOf(late.url) })).status).toBe(401);

    expect((await exchange(hub, { code: 'not-a-code-anyone-issued' })).status).toBe(401);
    const empty = await exchange(hub, { code: '' });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { message: string }).message).toContain('code');
    expect((await exchange(hub, {})).status).toBe(400);
  });

  it('with SESSION_HUB_TOKENS: hands over the configured admin token, just before expiry', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const hub = await startTestHub({ clock });
    clock.advance(SIGN_IN_CODE_TTL_MS - 1);
    const answer = await exchange(hub, { code: codeOf(hub.signInLink.url) });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ token: hub.tokens.admin, role: 'admin', namespace: 'default', expiresAt: null });
  });
});
