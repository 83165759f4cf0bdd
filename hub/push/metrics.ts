/** Web Push figures on the hub's /metrics: push attempts of this process by result. */
import { Counter, type Registry } from 'prom-client';

export type PushResult = 'sent' | 'gone' | 'failed';

export function createPushMetrics(registry: Registry): Counter<'result'> {
  const attempts = new Counter({
    name: 'session_hub_push_attempts_total',
    help: 'Web Push attempts, by result (sent: a 2xx; gone: 404/410, subscription deleted; failed: anything else, retried up to 3 tries).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  for (const result of ['sent', 'gone', 'failed'] satisfies PushResult[]) attempts.inc({ result }, 0);
  return attempts;
}
