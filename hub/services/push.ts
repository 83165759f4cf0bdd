/**
 * Subscribing a browser to web pushes: the subscription and, for a namespace's first one, the
 * sender's cursor at the namespace's newest event, in one transaction, so the next attention change
 * is pushed however soon it comes (and nothing logged before is).
 */
import { namespaceSeqState } from '../store/events.js';
import { saveSubscription, startPushCursor } from '../store/push.js';
import type { Store } from '../store/sql.js';

export async function subscribePush(
  store: Store,
  input: { endpoint: string; namespace: string; tokenId: string; p256dh: string; auth: string; now: number },
): Promise<void> {
  await store.transaction(async (tx) => {
    await saveSubscription(tx, input);
    await startPushCursor(tx, { namespace: input.namespace, seq: (await namespaceSeqState(tx, input.namespace)).lastSeq });
  }, { namespace: input.namespace });
}
