/**
 * The push service worker in Chromium: /sw.js registered from the hub's own origin under the page's
 * Content Security Policy, a push delivered to it through the DevTools protocol
 * (`ServiceWorker.deliverPushMessage`, what a push service's message becomes in the browser), and
 * the notification it asks the browser to show, recorded at `registration.showNotification` (headless
 * Chromium's own list, `getNotifications()`, sometimes stays empty after showNotification resolved:
 * about one run in eight here, so it is not what the assertions read). The payload is the
 * one the hub builds for an attention change (hub/push/message.ts). A click on it (dispatched in the
 * worker: Chromium cannot click one from a test) takes the open page to the session.
 */
import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pushPayload } from '../../hub/push/message.js';
import type { TestHub } from '../helpers/hub.js';
import { useDashboardPages } from './browser.js';

let hub: TestHub;
let context: BrowserContext;
let page: Page;

useDashboardPages({
  suite: (started) => ({ hub } = started),
  test: (opened) => ({ context, page } = opened),
});

interface Shown {
  title: string;
  body: string;
  tag: string;
  data: { sid: string | null; url: string; kind: string | null };
}

/** Registers /sw.js from the hub's page and answers the DevTools id of its registration. */
async function registerWorker(cdp: CDPSession): Promise<string> {
  await context.grantPermissions(['notifications'], { origin: hub.url });
  await page.goto(hub.url);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const registration of updated) registrations.set(registration.scopeURL, registration.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  const scope = await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    return (await navigator.serviceWorker.ready).scope;
  });
  expect(scope).toBe(`${hub.url}/`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 5000 });
  const id = registrations.get(scope);
  if (!id) throw new Error(`no registration reported for ${scope}: ${[...registrations.keys()].join(', ')}`);
  return id;
}

async function shownNotifications(): Promise<Shown[]> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
  });
}

/** What the worker asked the browser to show, in order (recorded from now on). */
interface Asked extends Shown {
  renotify: boolean;
}

/** The registered worker, with `registration.showNotification` recording each call before it shows. */
async function recordShownNotifications(): Promise<Worker> {
  const [worker] = context.serviceWorkers();
  if (!worker) throw new Error('no service worker in the context');
  await worker.evaluate(`(() => {
    self.__shown = [];
    const show = self.registration.showNotification.bind(self.registration);
    self.registration.showNotification = (title, options = {}) => {
      self.__shown.push({ title, body: options.body, tag: options.tag, renotify: options.renotify, data: options.data });
      return show(title, options);
    };
  })()`);
  return worker;
}

async function waitForShown(worker: Worker, count: number): Promise<Asked[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const shown = (await worker.evaluate('self.__shown')) as Asked[];
    if (shown.length >= count || Date.now() > deadline) return shown;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('push service worker', () => {
  it('is served at /sw.js as a script under the page policy', async () => {
    const response = await fetch(`${hub.url}/sw.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
  });

  it('shows the hub payload as a notification, one per session, and a generic one for an unreadable push', async () => {
    const cdp = await context.newCDPSession(page);
    const registrationId = await registerWorker(cdp);
    const worker = await recordShownNotifications();
    const payload = pushPayload({
      sid: 'sid-42',
      session: { name: 'Fix the login', agent: 'Claude Code' },
      attention: { kind: 'permission', since: Date.now(), message: null, tool: 'Bash' },
      eventAt: Date.now(),
    });
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: hub.url, registrationId, data: JSON.stringify(payload) });
    expect(await waitForShown(worker, 1)).toEqual([{
      title: 'Fix the login · Claude Code',
      body: 'Claude Code waits for your approval to run Bash',
      tag: 'session-sid-42',
      renotify: true,
      data: { sid: 'sid-42', url: '/#/s/sid-42', kind: 'permission' },
    }]);

    // the same session again: the same tag, so the browser replaces the older one (and rings again)
    const done = pushPayload({ sid: 'sid-42', session: { name: 'Fix the login', agent: 'Claude Code' }, attention: { kind: 'done', since: Date.now(), message: null, tool: null }, eventAt: Date.now() });
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: hub.url, registrationId, data: JSON.stringify(done) });
    const [, second] = await waitForShown(worker, 2);
    expect(second).toMatchObject({ body: 'Claude Code has finished', tag: 'session-sid-42', renotify: true });

    await cdp.send('ServiceWorker.deliverPushMessage', { origin: hub.url, registrationId, data: 'not json' });
    const [, , generic] = await waitForShown(worker, 3);
    expect(generic).toEqual({ title: 'Session Hub', body: 'A session needs you', tag: 'session-hub', renotify: true, data: { sid: null, url: '/', kind: null } });
  });

  it('on a notification click, takes the open page to the session', async () => {
    const cdp = await context.newCDPSession(page);
    const registrationId = await registerWorker(cdp);
    const worker = await recordShownNotifications();
    const payload = pushPayload({ sid: 'sid-7', session: { name: 'Deploy', agent: 'Claude Code' }, attention: { kind: 'question', since: Date.now(), message: null, tool: null }, eventAt: Date.now() });
    // the click needs the browser's Notification object: delivered again if headless Chromium's
    // list lost it (see the header); the worker is asked for it, as it would be on a real click
    let clicked = false;
    for (let delivery = 1; delivery <= 3 && !clicked; delivery++) {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: hub.url, registrationId, data: JSON.stringify(payload) });
      await waitForShown(worker, delivery);
      // Chromium has no way to click a notification from a test: the worker gets the event it would
      // get (a synthetic one, so waitUntil refuses to extend it; the navigation runs all the same)
      clicked = await worker.evaluate(`(async () => {
        for (let tries = 0; tries < 40; tries++) {
          const [notification] = await self.registration.getNotifications();
          if (notification) {
            self.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
            return true;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return false;
      })()`);
    }
    expect(clicked).toBe(true);
    await page.waitForURL(`${hub.url}/#/s/sid-7`, { timeout: 5000 });
    expect(await shownNotifications()).toEqual([]);
  });

  it('loads push.js in the page without errors, exporting enablePush and disablePush', async () => {
    await page.goto(hub.url);
    // a string: vitest would rewrite a dynamic import() written in this file
    const exported = await page.evaluate(`(async () => {
      const module = await import('/dashboard/push.js');
      return { enable: typeof module.enablePush, disable: typeof module.disablePush, supported: module.pushSupported() };
    })()`);
    expect(exported).toEqual({ enable: 'function', disable: 'function', supported: true });
  });
});
