/** One HTTP POST of a delivery, bounded in time; the answer is "2xx" or why not, never a throw. */
import { WEBHOOK_HEADERS } from '../../shared/protocol/webhooks.js';
import { signBody, type Delivery } from './payload.js';

export type PostOutcome = { ok: true } | { ok: false; error: string };

/** Why a fetch failed, for people: the network error code where there is one. */
function failureOf(error: unknown, timeoutMs: number): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (err.name === 'AbortError') return 'cancelled: the hub is stopping';
  const cause = err.cause;
  return cause?.code ? `${cause.code}: ${cause.message ?? err.message}` : err.message;
}

export async function postDelivery(input: {
  url: string;
  webhookId: string;
  secret: string;
  eventId: string;
  delivery: Delivery;
  timeoutMs: number;
  stopping: AbortSignal;
}): Promise<PostOutcome> {
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      // a redirect is not a 2xx: the receiver's URL should be fixed, not followed blindly
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(input.timeoutMs), input.stopping]),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'session-hub-webhook',
        [WEBHOOK_HEADERS.signature]: signBody(input.secret, input.delivery.body),
        [WEBHOOK_HEADERS.eventId]: input.eventId,
        [WEBHOOK_HEADERS.event]: input.delivery.kind,
        [WEBHOOK_HEADERS.webhookId]: input.webhookId,
      },
      body: input.delivery.body,
    });
    // only the status matters; the body is dropped so the connection is freed
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true };
    return { ok: false, error: `HTTP ${response.status} from the receiver` };
  } catch (error) {
    return { ok: false, error: failureOf(error, input.timeoutMs) };
  }
}
