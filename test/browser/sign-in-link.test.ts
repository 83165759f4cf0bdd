/**
 * Issue 26 point 14: no secret is ever part of a URL the browser navigates to or requests. The
 * start-up link carries a one-time code the page exchanges by POST; the form posts nothing; an
 * old-style `/?token=` link does not sign in. Every URL the browser navigated to, requested, or
 * keeps in its session history (CDP Page.getNavigationHistory) is checked for the token.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { useDashboardPages, signIn, textOf } from './browser.js';

let hub: TestHub;
let context: BrowserContext;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ context, page } = opened),
});

/** Every URL this page navigated to or requested, and those its session history holds. */
function recordUrls(): () => Promise<string[]> {
  const seen: string[] = [];
  page.on('request', (request) => seen.push(request.url()));
  page.on('framenavigated', (frame) => seen.push(frame.url()));
  return async () => {
    const cdp = await context.newCDPSession(page);
    const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
    return [...seen, ...entries.map((entry) => entry.url), page.url()];
  };
}

const tokenIn = (urls: string[], token: string) => urls.filter((url) => url.includes(token) || url.includes(encodeURIComponent(token)));

describe('signing in', () => {
  it('with the start-up link: the code is exchanged by POST, signed in, and no URL ever held the token; the link works once', async () => {
    const urls = recordUrls();
    const link = hub.issueSignInLink().url;
    await page.goto(link);
    await page.waitForSelector('#conn[data-state="live"]');
    // signed in with the token the exchange gave (SESSION_HUB_TOKENS' admin token here)
    expect(await page.evaluate(() => sessionStorage.getItem('sessionHub.token'))).toBe(hub.tokens.admin);
    expect(page.url()).not.toContain('code=');
    expect(tokenIn(await urls(), hub.tokens.admin)).toEqual([]);

    // the same link a second time (a history entry, a shared screenshot): refused, said why
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(link);
    await page.waitForSelector('#signin');
    expect(await textOf(page, '#signin-error')).toContain('used already or has expired');
  });

  it('with the form: the token is in no URL or history entry', async () => {
    const urls = recordUrls();
    await signIn(page, hub.url, hub.tokens.dashboard);
    await page.reload();
    await page.waitForSelector('#conn[data-state="live"]');
    expect(tokenIn(await urls(), hub.tokens.dashboard)).toEqual([]);
  });

  it('an old /?token= link does not sign in; the token is taken out of the address and the page says why', async () => {
    await page.goto(`${hub.url}/?token=${encodeURIComponent(hub.tokens.dashboard)}`);
    await page.waitForSelector('#signin');
    expect(page.url()).not.toContain('token');
    expect(await textOf(page, '#signin-error')).toContain('not taken from the address');
    expect(await page.evaluate(() => sessionStorage.getItem('sessionHub.token'))).toBeNull();
  });
});
