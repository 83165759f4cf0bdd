import { z } from 'zod';
import { EpochMsSchema } from './session.js';

/**
 * Web Push (docs/attention.md, "Browser push"): the browser's PushSubscription as the page sends
 * it (`subscription.toJSON()`), the hub's public VAPID key, and the payload a service worker shows.
 */

/** base64url without padding, as browsers encode subscription keys; `bytes`: the decoded length wanted. */
const base64url = (what: string, bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, `must be base64url (the browser's ${what})`)
    .refine((text) => Buffer.from(text, 'base64url').length === bytes, `must decode to ${bytes} bytes (the browser's ${what})`);

/** Push services are reached over https only; anything else is not a browser's subscription. */
export const PushEndpointSchema = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((url) => URL.canParse(url) && new URL(url).protocol === 'https:' && new URL(url).hostname !== '', 'must be an https URL (a push service endpoint)');

export const PushSubscriptionSchema = z.object({
  endpoint: PushEndpointSchema,
  /** Browsers send null or a time; kept only as information. */
  expirationTime: EpochMsSchema.nullable().optional(),
  keys: z.object({
    /** The browser's P-256 public key, uncompressed (65 bytes). */
    p256dh: base64url('P-256 public key', 65),
    /** The shared authentication secret (16 bytes). */
    auth: base64url('auth secret', 16),
  }),
});
export type PushSubscription = z.infer<typeof PushSubscriptionSchema>;

export const PushUnsubscribeSchema = z.object({ endpoint: PushEndpointSchema });
export type PushUnsubscribe = z.infer<typeof PushUnsubscribeSchema>;

/** `GET /api/push/key`: what `pushManager.subscribe({ applicationServerKey })` takes. */
export const PushKeyResponseSchema = z.object({ publicKey: z.string() });
export const PushSubscribedResponseSchema = z.object({ subscribed: z.string() });
export const PushRemovedResponseSchema = z.object({ removed: z.string() });

/** What the hub sends (encrypted) and sw.js shows: a title and a line a person reads, and where a click goes. */
export const PushPayloadSchema = z.object({
  title: z.string(),
  body: z.string(),
  sid: z.string(),
  kind: z.string(),
  /** The page at this session, relative to the hub's origin. */
  url: z.string(),
  since: EpochMsSchema,
});
export type PushPayload = z.infer<typeof PushPayloadSchema>;
