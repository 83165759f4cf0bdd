/**
 * Web Push sending: when a session's attention becomes set, every live subscription of its
 * namespace gets one push. The sender reads each namespace's event log from its own stored cursor
 * (as webhooks do), so one push goes out per attention change, whichever process logged it.
 *
 * One process of a cluster sends: the one holding the cluster-wide lock `push-delivery`. Each push
 * runs on its own (a slow push service holds up nothing else): 404/410 deletes the subscription,
 * other failures are retried twice, pushRetryMs then twice that, then dropped. The cursor moves
 * when a push is handed out, not when it is delivered: a ping lost to a crash is not worth a stale
 * one later. Events older than the push TTL (a hub that was down) are passed over.
 */
import type { Counter } from 'prom-client';
import type { HubDeps } from '../services/deps.js';
import { runAsLeader, sleep } from '../services/leader.js';
import { namespaceSeqState, readEventPageAfter } from '../store/events.js';
import { advancePushCursor, dropSubscription, listLiveSubscriptions, listPushNamespaces, pushCursor, type StoredPushSubscription } from '../store/push.js';
import { getSession } from '../store/sessions.js';
import { labelOf } from '../webhooks/session-label.js';
import { attentionSet, pushPayload, type AttentionNow } from './message.js';
import { PUSH_TTL_SECONDS, sendPush } from './send.js';
import type { Vapid } from './vapid.js';

const PAGE = 100;
/** Tries per push: the first and two retries. */
export const PUSH_ATTEMPTS = 3;

export interface Pusher {
  start(): void;
  /** Stops reading, aborts pushes in flight and waits for them, and releases the lock. */
  stop(): Promise<void>;
}

/** A push service's host: enough to tell them apart in logs (an endpoint URL is a capability, never logged whole). */
const serviceOf = (endpoint: string) => new URL(endpoint).host;

export function createPusher(deps: HubDeps, vapid: Vapid, attempts: Counter<'result'>): Pusher {
  const { store, config, log, clock } = deps;
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let running: Promise<void> | undefined;

  async function deliver(subscription: StoredPushSubscription, payload: string, sid: string): Promise<void> {
    const service = serviceOf(subscription.endpoint);
    for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
      const outcome = await sendPush({ subscription, payload, vapid, signal: stopping.signal });
      if (stopping.signal.aborted) return;
      attempts.inc({ result: outcome.result });
      if (outcome.result === 'sent') return log.debug({ sid, service, token: subscription.tokenId }, 'push sent');
      if (outcome.result === 'gone') {
        await dropSubscription(store, subscription.endpoint);
        return log.info({ sid, service, token: subscription.tokenId, status: outcome.status }, 'push subscription gone; deleted');
      }
      if (attempt === PUSH_ATTEMPTS) return log.warn({ sid, service, error: outcome.error, attempts: attempt }, 'push failed; dropped');
      await sleep(config.pushRetryMs * 2 ** (attempt - 1), stopping.signal);
    }
  }

  function track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => log.error({ err: error }, 'push failed')).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }

  async function dispatch(namespace: string, event: { sid: string; createdAt: number }, attention: AttentionNow): Promise<void> {
    const subscriptions = await listLiveSubscriptions(store, { namespace, now: clock.now() });
    if (subscriptions.length === 0) return;
    const session = labelOf(await getSession(store, { namespace, sid: event.sid }), event.sid);
    const payload = JSON.stringify(pushPayload({ sid: event.sid, session, attention, eventAt: event.createdAt }));
    for (const subscription of subscriptions) track(deliver(subscription, payload, event.sid));
  }

  /** Pushes what a namespace logged since its cursor; a namespace seen first starts at its newest event. */
  async function catchUp(namespace: string): Promise<void> {
    let cursor = await pushCursor(store, namespace);
    if (cursor === undefined) return advancePushCursor(store, { namespace, seq: (await namespaceSeqState(store, namespace)).lastSeq });
    while (!stopping.signal.aborted) {
      const page = await readEventPageAfter(store, { namespace, since: cursor, limit: PAGE });
      if (page.length === 0) return;
      const oldest = clock.now() - PUSH_TTL_SECONDS * 1000;
      for (const event of page) {
        const attention = attentionSet(event.body);
        if (attention && event.createdAt >= oldest) await dispatch(namespace, event, attention);
      }
      cursor = page[page.length - 1]!.seq;
      await advancePushCursor(store, { namespace, seq: cursor });
    }
  }

  async function sendWhileLeader(): Promise<void> {
    log.debug('this process sends web pushes');
    while (!stopping.signal.aborted) {
      try {
        for (const namespace of await listPushNamespaces(store)) await catchUp(namespace);
      } catch (error) {
        log.error({ err: error }, 'push poll failed; will retry');
      }
      await sleep(config.pushPollMs, stopping.signal);
    }
    await Promise.all(inFlight);
  }

  return {
    start() {
      running ??= runAsLeader({ store, name: 'push-delivery', what: 'push sending', log, stopping: stopping.signal, work: sendWhileLeader });
    },
    async stop() {
      stopping.abort();
      await running;
      await Promise.all(inFlight);
    },
  };
}
