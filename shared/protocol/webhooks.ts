import { z } from 'zod';
import { UpdateBodySchema } from './broadcast.js';
import { EpochMsSchema, SeqSchema } from './session.js';

/**
 * Webhooks (docs/attention.md, "Webhooks"): the admin API's bodies and what a receiver gets.
 * Event filter names are for people: each one names a kind of `update` event (spec section 5).
 */
export const WEBHOOK_EVENT_NAMES = ['session-created', 'session-ended', 'session-archived', 'turn', 'attention', 'all'] as const;
export const WebhookEventNameSchema = z.enum(WEBHOOK_EVENT_NAMES);
export type WebhookEventName = z.infer<typeof WebhookEventNameSchema>;

/** `json`: the event itself; `slack`: `{ text }`, which Slack, Mattermost and Discord (URL + `/slack`) accept. */
export const WebhookFormatSchema = z.enum(['json', 'slack']);
export type WebhookFormat = z.infer<typeof WebhookFormatSchema>;

/** Why a URL is refused, or null: only absolute http(s) URLs with a host. */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not an absolute URL (expected http://host/… or https://host/…)`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `"${url}" must use http or https, not ${parsed.protocol.replace(/:$/, '')}`;
  if (parsed.hostname === '') return `"${url}" has no host`;
  if (parsed.username !== '' || parsed.password !== '') return `"${url}" must not carry a user name or password (they would be stored and shown)`;
  return null;
}

export const WebhookUrlSchema = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .superRefine((url, ctx) => {
    const problem = webhookUrlProblem(url);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

export const CreateWebhookRequestSchema = z.object({
  url: WebhookUrlSchema,
  events: z.array(WebhookEventNameSchema).min(1, 'name at least one event').max(WEBHOOK_EVENT_NAMES.length).default(['all']),
  format: WebhookFormatSchema.default('json'),
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

/** A webhook as listed: never its secret. */
export const WebhookSchema = z.object({
  id: z.string(),
  namespace: z.string(),
  url: z.string(),
  events: z.array(WebhookEventNameSchema),
  format: WebhookFormatSchema,
  /** The last seq delivered (or skipped by the filter); events after it are still to send. */
  cursorSeq: SeqSchema,
  /** Failed attempts in a row (0 once one succeeds). */
  failures: z.number().int().nonnegative(),
  failingSince: EpochMsSchema.nullable(),
  nextAttemptAt: EpochMsSchema,
  pausedAt: EpochMsSchema.nullable(),
  lastError: z.string().nullable(),
  delivered: z.number().int().nonnegative(),
  lastDeliveredAt: EpochMsSchema.nullable(),
  /** Events pruned by retention before they could be delivered (they are skipped, never waited for). */
  lostEvents: z.number().int().nonnegative(),
  createdAt: EpochMsSchema,
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const ListWebhooksResponseSchema = z.object({ webhooks: z.array(WebhookSchema) });
/** The secret is shown in this answer only; the receiver needs it to check signatures. */
export const CreateWebhookResponseSchema = z.object({ webhook: WebhookSchema, secret: z.string() });
export type CreateWebhookResponse = z.infer<typeof CreateWebhookResponseSchema>;
export const WebhookParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const RemoveWebhookResponseSchema = z.object({ removed: z.string() });

/** The headers of every delivery. The signature is `sha256=<hex HMAC-SHA256 of the raw body, keyed by the secret>`. */
export const WEBHOOK_HEADERS = {
  signature: 'x-session-hub-signature',
  eventId: 'x-session-hub-event-id',
  event: 'x-session-hub-event',
  webhookId: 'x-session-hub-webhook',
} as const;

/** The matched kind of one delivered event: a filter name other than `all`, or `update` for the rest. */
export const WebhookEventKindSchema = z.enum(['session-created', 'session-ended', 'session-archived', 'turn', 'attention', 'update']);
export type WebhookEventKind = z.infer<typeof WebhookEventKindSchema>;

/** What a `json` webhook receives: the event id (drop duplicates by it), its seq, and the update body as broadcast. */
export const WebhookJsonPayloadSchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  namespace: z.string(),
  seq: z.number().int().positive(),
  createdAt: EpochMsSchema,
  event: WebhookEventKindSchema,
  sid: z.string(),
  /** One readable line, the same as the `slack` format's text (chat-escaped; `body` has the values as stored). */
  text: z.string(),
  body: UpdateBodySchema,
});
export type WebhookJsonPayload = z.infer<typeof WebhookJsonPayloadSchema>;

/**
 * What a `slack` webhook receives: incoming-webhook services read `text` and ignore the rest.
 * `text` is chat-escaped (`&amp;` `&lt;` `&gt;`, a zero-width space after `@`: docs/security.md);
 * `allowed_mentions` tells Discord to ping nobody.
 */
export const WebhookSlackPayloadSchema = z.object({ text: z.string(), id: z.string(), allowed_mentions: z.object({ parse: z.array(z.string()).max(0) }) });
export type WebhookSlackPayload = z.infer<typeof WebhookSlackPayloadSchema>;
