/**
 * Webhook figures on the hub's /metrics: attempts by result, events lost to retention, and the
 * webhooks paused now (read from the store at scrape time, so every process of a cluster agrees).
 */
/**
 * How long a scrape waits for the paused count. On SQLite a read waits for the write transaction in
 * progress; a scrape must never hang on a long write, so past this it reports the last count read
 * (the read goes on and serves the next scrape).
 */
const SCRAPE_WAIT_MS = 250;

/** Resolves after `ms`, or when `done` settles first (the timer is cleared then). */
async function atMost(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Sql } from '../store/sql.js';
import { countPausedWebhooks } from '../store/webhooks.js';

export interface WebhookMetrics {
  deliveries: Counter<'result'>;
  lostEvents: Counter;
}

export function createWebhookMetrics(registry: Registry, sql: Sql): WebhookMetrics {
  const registers = [registry];
  const deliveries = new Counter({
    name: 'session_hub_webhook_deliveries_total',
    help: 'Webhook POST attempts, by result (ok: a 2xx; failed: anything else, a timeout or a network error).',
    labelNames: ['result'] as const,
    registers,
  });
  deliveries.inc({ result: 'ok' }, 0);
  deliveries.inc({ result: 'failed' }, 0);
  const lostEvents = new Counter({
    name: 'session_hub_webhook_lost_events_total',
    help: 'Events pruned by retention before a webhook delivered them (skipped).',
    registers,
  });
  let lastPaused = 0;
  let reading: Promise<void> | undefined;
  new Gauge({
    name: 'session_hub_webhooks_paused',
    help: 'Webhooks paused after failing too long (session-hub webhook resume <id> restarts one).',
    registers,
    async collect() {
      reading ??= countPausedWebhooks(sql)
        .then((count) => void (lastPaused = count))
        .catch(() => undefined)
        .finally(() => (reading = undefined));
      await atMost(reading, SCRAPE_WAIT_MS);
      this.set(lastPaused);
    },
  });
  return { deliveries, lostEvents };
}
