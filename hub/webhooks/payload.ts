/**
 * The bytes of one delivery and their signature. The signature covers the exact body sent, so a
 * receiver must check it against the raw bytes before parsing (docs/attention.md has an example).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { WebhookFormat, WebhookJsonPayload, WebhookSlackPayload } from '../../shared/protocol/webhooks.js';
import { chatSafe } from './chat-text.js';
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
  // the line carries session text: escaped for chat in both formats (a json webhook's `text` can
  // reach a chat too); `body` keeps the values as stored
  const text = chatSafe(describeEvent(event.body, input.session));
  if (input.format === 'slack') {
    // allowed_mentions: Discord's own switch for pings, should its endpoint read it; chatSafe does not rely on it
    const payload: WebhookSlackPayload = { text, id: event.id, allowed_mentions: { parse: [] } };
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
