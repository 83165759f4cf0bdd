/**
 * Webhook delivery through the real hub (in this process) to a real receiver on loopback: signed
 * POSTs in seq order, the filter, at least once with the event id to drop duplicates, 500s then
 * recovery, a receiver that hangs, the pause after repeated failures (doctor and /metrics show it),
 * resume, and events pruned by retention before delivery. Short retry timings keep it quick.
 */
import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import { WEBHOOK_HEADERS, type CreateWebhookResponse, type Webhook, type WebhookEventName } from '../../shared/protocol/webhooks.js';
import { diagnose } from '../../hub/services/doctor.js';
import { readEventsSince } from '../../hub/store/events.js';
import { connectRunner, startSession, waitFor, type RunnerSocket } from '../helpers/clients.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';
import { sample, scrape } from '../reliability/metrics-text.js';
import { closeReceiversAfterEach, startReceiver, type Receiver } from './receiver.js';

const TIMINGS = { webhookPollMs: 20, webhookRetryMs: 50, webhookRetryMaxMs: 200, webhookPauseAfter: 4, webhookTimeoutMs: 400 };

let hub: TestHub;
let runner: RunnerSocket;
closeReceiversAfterEach();

function useHub(config: Record<string, number>): void {
  useTestHub(async (started) => {
    hub = started;
    runner = await connectRunner(hub.url, hub.tokens.runner);
  }, () => ({ config }));
}

/** The namespace's stored events after `since`: what a webhook made at `since` must carry, in order. */
const storedAfter = (since: number): Promise<UpdateEvent[]> => readEventsSince(hub.deps.store, { namespace: 'default', since });

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${hub.tokens.admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

async function addWebhook(receiver: Receiver, options: { events?: WebhookEventName[]; format?: 'json' | 'slack' } = {}): Promise<Webhook> {
  const created = await api<CreateWebhookResponse>('POST', '/api/webhooks', { url: receiver.url, ...options });
  receiver.secret = created.secret;
  return created.webhook;
}

const webhookNow = async (id: string) => (await api<{ webhooks: Webhook[] }>('GET', '/api/webhooks')).webhooks.find((w) => w.id === id)!;

/** Some events: two sessions (one titled), a turn opened and closed, an end. */
async function makeEvents(): Promise<string[]> {
  const a = await startSession(runner, { metadata: { path: '/work/alpha', title: 'Fix the login' } });
  const b = await startSession(runner, { tag: 'beta-tag' });
  await runner.emitWithAck('prompt-submit', { sid: a.sid, prompt: 'make the tests pass' });
  await runner.emitWithAck('turn-stop', { sid: a.sid, response: 'done', status: 'completed' });
  await runner.emitWithAck('session-end', { sid: b.sid, reason: 'user quit' });
  return [a.sid, b.sid];
}

describe('delivery', () => {
  useHub(TIMINGS);

  it('POSTs every event once, in seq order, signed, with the event id in a header and in the body', async () => {
    const receiver = await startReceiver();
    const webhook = await addWebhook(receiver);
    await makeEvents();
    const seen = await storedAfter(webhook.cursorSeq);
    expect(seen.length).toBeGreaterThanOrEqual(5);
    await waitFor(() => receiver.posts.length === seen.length, 5000, 'every event delivered');
    expect(receiver.posts.map((p) => p.body.id)).toEqual(seen.map((e) => e.id));
    expect(receiver.posts.map((p) => p.body.seq)).toEqual(seen.map((e) => e.seq));
    for (const post of receiver.posts) {
      expect(post.signed).toBe(true);
      expect(post.eventId).toBe(post.body.id);
      expect(post.headers[WEBHOOK_HEADERS.webhookId]).toBe(webhook.id);
      expect(post.headers[WEBHOOK_HEADERS.event]).toBe(post.body.event);
      expect(post.body.namespace).toBe('default');
    }
    expect(receiver.posts.map((p) => p.body.body)).toEqual(seen.map((e) => e.body));
    // the cursor is stored after each 2xx
    await waitFor(async () => (await webhookNow(webhook.id)).cursorSeq === seen.at(-1)!.seq, 2000, 'the cursor at the last event');
    expect(await webhookNow(webhook.id)).toMatchObject({ failures: 0, delivered: seen.length, lastError: null, pausedAt: null });
  });

  it('sends only the filtered kinds, and starts at the events made after the webhook', async () => {
    await startSession(runner, { tag: 'before-the-webhook' });
    const receiver = await startReceiver();
    const webhook = await addWebhook(receiver, { events: ['session-created', 'session-ended'] });
    const [a, b] = await makeEvents();
    const seen = await storedAfter(webhook.cursorSeq);
    await waitFor(() => receiver.posts.length === 3, 5000, 'three deliveries');
    expect(receiver.posts.map((p) => [p.body.event, p.body.sid])).toEqual([
      ['session-created', a],
      ['session-created', b],
      ['session-ended', b],
    ]);
    // the filtered-out events after the last match are passed over too
    await waitFor(async () => (await webhookNow(webhook.id)).cursorSeq === seen.at(-1)!.seq, 2000, 'the cursor past the skipped events');
    expect(receiver.posts).toHaveLength(3);
  });

  it('posts one readable line in the slack format', async () => {
    const receiver = await startReceiver();
    await addWebhook(receiver, { format: 'slack', events: ['session-created', 'turn', 'session-ended'] });
    await makeEvents();
    await waitFor(() => receiver.posts.length === 5, 5000, 'five deliveries');
    expect(receiver.posts.map((p) => p.body.text)).toEqual([
      'Claude Code session "Fix the login" started',
      'Claude Code session "beta-tag" started',
      'Claude Code session "Fix the login" started a turn "make the tests pass"',
      'Claude Code session "Fix the login" finished a turn (completed) "done"',
      'Claude Code session "beta-tag" ended (user quit)',
    ]);
    for (const post of receiver.posts) {
      expect(Object.keys(post.body).sort()).toEqual(['allowed_mentions', 'id', 'text']);
      expect(post.body.id).toBe(post.eventId);
      expect(post.signed).toBe(true);
    }
  });

  it('retries after 500s in order, then recovers: every event accepted once after dropping duplicates by id', async () => {
    const receiver = await startReceiver();
    receiver.answer = (index) => (index < 3 ? 500 : 200);
    const webhook = await addWebhook(receiver, { events: ['session-created'] });
    const sids = [];
    for (let i = 0; i < 3; i++) sids.push((await startSession(runner)).sid);
    await waitFor(() => receiver.accepted().length === 3, 5000, 'the three sessions accepted');
    // the first event was sent four times (three 500s), the same id each time; nothing overtook it
    expect(receiver.posts.slice(0, 4).map((p) => p.body.sid)).toEqual([sids[0], sids[0], sids[0], sids[0]]);
    expect(new Set(receiver.posts.slice(0, 4).map((p) => p.eventId)).size).toBe(1);
    expect(receiver.accepted().map((p) => p.body.sid)).toEqual(sids);
    expect(receiver.posts.every((p) => p.signed)).toBe(true);
    // the receiver answers before the hub stores the delivery: wait for the stored row, not the POST
    await waitFor(async () => (await webhookNow(webhook.id)).delivered === 3, 2000, 'three deliveries stored');
    expect(await webhookNow(webhook.id)).toMatchObject({ failures: 0, pausedAt: null, lastError: null });
    const metrics = await scrape(hub.url);
    expect(sample(metrics, 'session_hub_webhook_deliveries_total', { result: 'failed' })).toBe(3);
    expect(sample(metrics, 'session_hub_webhook_deliveries_total', { result: 'ok' })).toBe(3);
  });

  it('gives up on a receiver that hangs after the timeout, and sends the event again', async () => {
    const receiver = await startReceiver();
    receiver.answer = (index) => (index === 0 ? 'hang' : 200);
    const webhook = await addWebhook(receiver, { events: ['session-created'] });
    const { sid } = await startSession(runner);
    await waitFor(() => receiver.accepted().length === 1, 5000, 'the retry accepted');
    expect(receiver.posts.map((p) => [p.answered, p.body.sid])).toEqual([
      ['hang', sid],
      [200, sid],
    ]);
    // stored after the receiver's 200 reached the hub: wait for the row (PostgreSQL takes a moment)
    await waitFor(async () => (await webhookNow(webhook.id)).delivered === 1, 2000, 'the delivery stored');
    expect(await webhookNow(webhook.id)).toMatchObject({ delivered: 1, failures: 0, lastError: null });
  });

  it('pauses a webhook that keeps failing; doctor and /metrics show it; resume delivers what waited', async () => {
    const receiver = await startReceiver();
    receiver.answer = () => 503;
    const webhook = await addWebhook(receiver, { events: ['session-created'] });
    const first = await startSession(runner);
    await waitFor(async () => (await webhookNow(webhook.id)).pausedAt !== null, 5000, 'the webhook paused');
    const paused = await webhookNow(webhook.id);
    expect(paused).toMatchObject({ failures: TIMINGS.webhookPauseAfter, lastError: 'HTTP 503 from the receiver', delivered: 0 });
    expect(receiver.posts).toHaveLength(TIMINGS.webhookPauseAfter);
    expect(sample(await scrape(hub.url), 'session_hub_webhooks_paused')).toBe(1);
    const report = await diagnose(hub.deps.store, { now: Date.now(), runGraceMs: 120_000, turnTimeoutMs: 300_000 });
    expect(report.ok).toBe(false);
    expect(report.webhooks.map((w) => [w.id, w.failures])).toEqual([[webhook.id, TIMINGS.webhookPauseAfter]]);

    // paused: nothing more is tried, even for new events
    const second = await startSession(runner);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.posts).toHaveLength(TIMINGS.webhookPauseAfter);

    receiver.answer = () => 200;
    const resumed = await api<Webhook>('POST', `/api/webhooks/${webhook.id}/resume`);
    expect(resumed).toMatchObject({ pausedAt: null, failures: 0 });
    await waitFor(() => receiver.accepted().length === 2, 5000, 'both sessions delivered after the resume');
    expect(receiver.accepted().map((p) => p.body.sid)).toEqual([first.sid, second.sid]);
    expect(sample(await scrape(hub.url), 'session_hub_webhooks_paused')).toBe(0);
  });
});

describe('a hanging receiver', () => {
  // long enough that the other webhook's deliveries all happen inside one hanging POST
  useHub({ ...TIMINGS, webhookTimeoutMs: 10_000 });

  it('holds up only its own webhook: another one delivers meanwhile', async () => {
    const stuck = await startReceiver();
    stuck.answer = () => 'hang';
    const healthy = await startReceiver();
    await addWebhook(stuck, { events: ['session-created'] });
    await addWebhook(healthy, { events: ['session-created'] });
    const sids = [];
    for (let i = 0; i < 3; i++) sids.push((await startSession(runner)).sid);
    await waitFor(() => healthy.accepted().length === 3, 8000, 'the healthy webhook delivering');
    expect(healthy.accepted().map((p) => p.body.sid)).toEqual(sids);
    // the stuck one still waits on its first POST, with nothing sent past it
    expect(stuck.posts.map((p) => p.body.sid)).toEqual([sids[0]]);
  });
});

describe('retention', () => {
  // every event may be pruned at once by a sweep: keep none, for no time
  useHub({ ...TIMINGS, eventKeep: 0, eventKeepMs: 0 });

  it('skips events pruned before delivery (counted, noted, shown by doctor) and delivers the rest', async () => {
    const receiver = await startReceiver();
    receiver.answer = () => 500;
    const webhook = await addWebhook(receiver, { events: ['session-created'] });
    await startSession(runner);
    await startSession(runner);
    await waitFor(async () => (await webhookNow(webhook.id)).pausedAt !== null, 5000, 'the webhook paused');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await hub.sweepNow();
    receiver.answer = () => 200;
    await api('POST', `/api/webhooks/${webhook.id}/resume`);
    // resume acknowledges earlier losses; the ones found from now on are counted
    await waitFor(async () => (await webhookNow(webhook.id)).lostEvents > 0, 5000, 'the pruned events skipped');
    const skipped = await webhookNow(webhook.id);
    expect(skipped.lastError).toMatch(/pruned by retention before delivery/);
    const report = await diagnose(hub.deps.store, { now: Date.now(), runGraceMs: 120_000, turnTimeoutMs: 300_000 });
    expect(report.webhooks.map((w) => w.id)).toEqual([webhook.id]);
    expect(sample(await scrape(hub.url), 'session_hub_webhook_lost_events_total')).toBe(skipped.lostEvents);

    const later = await startSession(runner);
    await waitFor(() => receiver.accepted().length === 1, 5000, 'the later event delivered');
    expect(receiver.accepted()[0]!.body.sid).toBe(later.sid);
  });
});
