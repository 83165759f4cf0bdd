/**
 * Managing webhooks, for the CLI (offline, on the database) and the admin HTTP API alike. A
 * webhook starts at its namespace's newest event: it gets what happens after it was made.
 */
import { randomBytes } from 'node:crypto';
import type { CreateWebhookRequest, Webhook, WebhookEventName } from '../../shared/protocol/webhooks.js';
import { namespaceSeqState } from '../store/events.js';
import type { Store } from '../store/sql.js';
import { deleteWebhook, getWebhook, insertWebhook, resumeWebhook } from '../store/webhooks.js';

/** `all` covers the rest; repeats say nothing more. */
function normalizeEvents(events: readonly WebhookEventName[]): WebhookEventName[] {
  return events.includes('all') ? ['all'] : [...new Set(events)];
}

/** Strips the secret from a stored webhook. */
function withoutSecret<T extends Webhook & { secret?: string }>(webhook: T): Webhook {
  const { secret: _secret, ...rest } = webhook;
  return rest;
}

export async function createWebhook(store: Store, input: CreateWebhookRequest & { namespace: string; now: number }): Promise<{ webhook: Webhook; secret: string }> {
  const id = `wh_${randomBytes(8).toString('hex')}`;
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  await store.transaction(async (tx) => {
    const { lastSeq } = await namespaceSeqState(tx, input.namespace);
    await insertWebhook(tx, { id, namespace: input.namespace, url: input.url, events: normalizeEvents(input.events), format: input.format, secret, cursorSeq: lastSeq, now: input.now });
  }, { namespace: input.namespace });
  return { webhook: withoutSecret((await getWebhook(store, id))!), secret };
}

/** The webhook `id`, if it exists and (when a namespace is given) belongs to it: another tenant's is as absent as a missing one. */
async function findWebhook(store: Store, id: string, namespace: string | undefined) {
  const webhook = await getWebhook(store, id);
  return webhook && (namespace === undefined || webhook.namespace === namespace) ? webhook : undefined;
}

/** Removes a webhook; false when there is none by that id (in that namespace). */
export async function removeWebhook(store: Store, input: { id: string; namespace?: string }): Promise<boolean> {
  if (!(await findWebhook(store, input.id, input.namespace))) return false;
  return deleteWebhook(store, input.id);
}

/** Unpauses a webhook: it retries at once, from where its cursor stopped. Undefined when there is none by that id. */
export async function unpauseWebhook(store: Store, input: { id: string; namespace?: string }): Promise<Webhook | undefined> {
  if (!(await findWebhook(store, input.id, input.namespace))) return undefined;
  await resumeWebhook(store, input.id);
  const webhook = await getWebhook(store, input.id);
  return webhook && withoutSecret(webhook);
}
