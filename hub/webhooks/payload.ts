/**
 * The bytes of one delivery and their signature. The signature covers the exact body sent, so a
 * receiver must check it against the raw bytes before parsing (docs/attention.md has an example).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { WebhookFormat, WebhookJsonPayload, WebhookSlackPayload } from '../../shared/protocol/webhooks.js';
import { describeEvent, primaryKind, type SessionLabel } from './event-kinds.js';

export interface Delivery {
  body: string;
  kind: string;
}

/** `sha256=<hex>`: HMAC-SHA256 of the body keyed by the webhook's secret. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Constant-time check of a signature header (the receiving side; the tests use it too). */
export function signatureMatches(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function buildDelivery(input: {
  webhookId: string;
  namespace: string;
  format: WebhookFormat;
  event: UpdateEvent & { sid: string };
  session: SessionLabel;
}): Delivery {
  const { event } = input;
  const kind = primaryKind(event.body);
  const text = describeEvent(event.body, input.session);
  if (input.format === 'slack') {
    const payload: WebhookSlackPayload = { text, id: event.id };
    return { body: JSON.stringify(payload), kind };
  }
  const payload: WebhookJsonPayload = {
    id: event.id,
    webhookId: input.webhookId,
    namespace: input.namespace,
    seq: event.seq,
    createdAt: event.createdAt,
    event: kind,
    sid: event.sid,
    text,
    body: event.body,
  };
  return { body: JSON.stringify(payload), kind };
}
