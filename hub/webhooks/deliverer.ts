/**
 * Webhook delivery: each webhook is a durable cursor over its namespace's event log. Events go out
 * in seq order, one at a time per webhook; the cursor is stored only after a 2xx, so a crash between
 * the POST and the store repeats that event (at least once; receivers drop duplicates by event id).
 * A failure waits retryMs doubling up to retryMaxMs; after pauseAfter failures in a row the
 * webhook is paused until `session-hub webhook resume`.
 *
 * One process of a cluster delivers: the one holding the cluster-wide lock `webhook-delivery` (on
 * SQLite the only process). The others try again every few seconds, so a stopped or killed leader is
 * replaced (PostgreSQL frees its lock with its connection).
 *
 * URLs are never logged: a chat service's webhook URL is itself a credential.
 */
import type { HubDeps } from '../services/deps.js';
import { runAsLeader, sleep } from '../services/leader.js';
import { namespaceSeqState, readEventPageAfter } from '../store/events.js';
import { getSession } from '../store/sessions.js';
import { listDueWebhooks, markDelivered, markFailed, skipTo, type WebhookWithSecret } from '../store/webhooks.js';
import { matchesFilter, type SessionLabel } from './event-kinds.js';
import type { WebhookMetrics } from './metrics.js';
import { buildDelivery } from './payload.js';
import { postDelivery } from './post.js';
import { labelOf } from './session-label.js';

/** Events read per query while a webhook catches up. */
const PAGE = 100;

export interface WebhookDeliverer {
  start(): void;
  /** Stops polling, cancels POSTs in flight (their events are sent again later) and releases the lock. */
  stop(): Promise<void>;
}

/** The wait before attempt `failures + 1`: retryMs doubling per failure, at most retryMaxMs. */
export function retryDelay(failures: number, retryMs: number, retryMaxMs: number): number {
  return Math.min(retryMaxMs, retryMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

export function createWebhookDeliverer(deps: HubDeps, metrics: WebhookMetrics): WebhookDeliverer {
  const { store, config, log, clock } = deps;
  const stopping = new AbortController();
  const draining = new Map<string, Promise<void>>();
  let running: Promise<void> | undefined;

  /** Events retention pruned past the cursor are skipped (counted, noted), never waited for. */
  async function skipPruned(webhook: WebhookWithSecret, cursor: number): Promise<number> {
    const { prunedThrough } = await namespaceSeqState(store, webhook.namespace);
    if (prunedThrough <= cursor) return cursor;
    const lost = prunedThrough - cursor;
    const note = `up to ${lost} event(s) (seq ${cursor + 1}–${prunedThrough}) were pruned by retention before delivery`;
    await skipTo(store, { id: webhook.id, seq: prunedThrough, lost, note });
    metrics.lostEvents.inc(lost);
    log.warn({ webhook: webhook.id, namespace: webhook.namespace, lost }, `webhook ${webhook.id}: ${note}`);
    return prunedThrough;
  }

  async function labelFor(webhook: WebhookWithSecret, event: { sid: string }): Promise<SessionLabel> {
    const session = await getSession(store, { namespace: webhook.namespace, sid: event.sid });
    return labelOf(session, event.sid);
  }

  /** Sends what is due to one webhook, in order, until it has caught up, fails once, or the hub stops. */
  async function drain(webhook: WebhookWithSecret): Promise<void> {
    let cursor = webhook.cursorSeq;
    let failures = webhook.failures;
    while (!stopping.signal.aborted) {
      cursor = await skipPruned(webhook, cursor);
      const page = await readEventPageAfter(store, { namespace: webhook.namespace, since: cursor, limit: PAGE });
      if (page.length === 0) return;
      for (const event of page) {
        if (!matchesFilter(event.body, webhook.events)) continue;
        if (stopping.signal.aborted) return;
        const delivery = buildDelivery({ webhookId: webhook.id, namespace: webhook.namespace, format: webhook.format, event, session: await labelFor(webhook, event) });
        const outcome = await postDelivery({ url: webhook.url, webhookId: webhook.id, secret: webhook.secret, eventId: event.id, delivery, timeoutMs: config.webhookTimeoutMs, stopping: stopping.signal });
        if (stopping.signal.aborted) return;
        const now = clock.now();
        if (!outcome.ok) {
          failures += 1;
          metrics.deliveries.inc({ result: 'failed' });
          const nextAttemptAt = now + retryDelay(failures, config.webhookRetryMs, config.webhookRetryMaxMs);
          await markFailed(store, { id: webhook.id, now, nextAttemptAt, error: outcome.error, pauseAfter: config.webhookPauseAfter });
          if (failures >= config.webhookPauseAfter) log.warn({ webhook: webhook.id, failures, error: outcome.error }, `webhook ${webhook.id} paused after ${failures} failed attempts`);
          else log.info({ webhook: webhook.id, failures, error: outcome.error, retryAt: nextAttemptAt }, `webhook ${webhook.id} delivery failed; will retry`);
          // the events passed over before this one are done with
          if (event.seq - 1 > cursor) await skipTo(store, { id: webhook.id, seq: event.seq - 1, lost: 0, note: null });
          return;
        }
        failures = 0;
        metrics.deliveries.inc({ result: 'ok' });
        // no row changed: the webhook was removed meanwhile
        if (!(await markDelivered(store, { id: webhook.id, seq: event.seq, now }))) return;
        cursor = event.seq;
      }
      const last = page[page.length - 1]!.seq;
      if (last > cursor) {
        await skipTo(store, { id: webhook.id, seq: last, lost: 0, note: null });
        cursor = last;
      }
    }
  }

  /** One look at every webhook: each one due and not already being drained starts draining. */
  async function tick(): Promise<void> {
    for (const webhook of await listDueWebhooks(store, clock.now())) {
      if (draining.has(webhook.id)) continue;
      const work = drain(webhook)
        .catch((error: unknown) => log.error({ err: error, webhook: webhook.id }, 'webhook delivery failed; will retry on the next poll'))
        .finally(() => draining.delete(webhook.id));
      draining.set(webhook.id, work);
    }
  }

  async function deliverWhileLeader(): Promise<void> {
    log.debug('this process delivers webhooks');
    while (!stopping.signal.aborted) {
      await tick().catch((error: unknown) => log.error({ err: error }, 'webhook poll failed; will retry'));
      await sleep(config.webhookPollMs, stopping.signal);
    }
    await Promise.all(draining.values());
  }

  return {
    start() {
      running ??= runAsLeader({ store, name: 'webhook-delivery', what: 'webhook delivery', log, stopping: stopping.signal, work: deliverWhileLeader });
    },
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
