/**
 * One push to one browser: the payload encrypted for the subscription (aes128gcm, RFC 8291) and
 * signed with the hub's VAPID key (RFC 8292) by `web-push`, then POSTed with fetch, so a stopping
 * hub can abort it and a slow push service holds up only its own subscription.
 */
import webpush from 'web-push';
import type { StoredPushSubscription } from '../store/push.js';
import type { Vapid } from './vapid.js';

/** How long a push service keeps an undelivered push: a ping older than this would only confuse. */
export const PUSH_TTL_SECONDS = 600;
const TIMEOUT_MS = 10_000;

/** `gone`: the push service no longer knows the subscription (404/410); it is to be deleted. */
export type PushOutcome = { result: 'sent' } | { result: 'gone'; status: number } | { result: 'failed'; error: string };

export async function sendPush(input: { subscription: StoredPushSubscription; payload: string; vapid: Vapid; signal: AbortSignal }): Promise<PushOutcome> {
  const { subscription, vapid } = input;
  const request = webpush.generateRequestDetails(
    { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
    input.payload,
    { vapidDetails: vapid, contentEncoding: 'aes128gcm', TTL: PUSH_TTL_SECONDS, urgency: 'high' },
  );
  let response: Response;
  try {
    response = await fetch(request.endpoint, {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: request.body === null ? null : new Uint8Array(request.body),
      signal: AbortSignal.any([input.signal, AbortSignal.timeout(TIMEOUT_MS)]),
    });
    await response.body?.cancel();
  } catch (error) {
    return { result: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
  if (response.status === 404 || response.status === 410) return { result: 'gone', status: response.status };
  if (!response.ok) return { result: 'failed', error: `push service answered ${response.status}` };
  return { result: 'sent' };
}
