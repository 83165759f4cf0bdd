import { randomUUID } from 'node:crypto';
import { hubError } from '../../shared/errors.js';
import { sameJson } from '../../shared/protocol/json.js';
import type { SessionStartPayload } from '../../shared/protocol/lifecycle.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import { actorWrite, runWrite, type ChangeSet, type UnitOfWork } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { applyMetadataPatch, mergeWholeDocument } from '../services/metadata-merge.js';
import { assertDocumentSize, assertResumeTokens, commitMetadataVersion, trackResumeTokenChanges } from '../services/metadata-writes.js';
import { toSnapshot } from '../services/snapshots.js';
import { insertHistory } from '../store/history.js';
import { getSession, getSessionByTag, insertSession, updateFlavor, type StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import { noteActivity, openRun, setLifecycle, setPresence } from './transitions.js';

const LINKING_SOURCES = new Set(['clear', 'compact']);

async function createSession(tx: Tx, changes: ChangeSet, actor: Actor, payload: SessionStartPayload, parentSid: string | null, now: number): Promise<StoredSession> {
  const sid = randomUUID();
  const { document, cleared, dropped } = mergeWholeDocument({}, payload.metadata ?? {});
  await insertSession(tx, { sid, namespace: actor.namespace, tag: payload.tag, flavor: payload.flavor, parentSid, metadata: document, now });
  await insertHistory(tx, { sid, version: 1, at: now, by: actor.by, carried: [], cleared, dropped, metadata: document });
  await trackResumeTokenChanges(tx, { sid, before: {}, after: document, now });
  changes.sessionCreated(sid);
  return (await getSession(tx, { namespace: actor.namespace, sid }))!;
}

/** Marks the parent of a clear/compact superseded by its child, as a hub-owned metadata key. */
async function linkToParent(tx: Tx, changes: ChangeSet, parent: StoredSession, childSid: string, now: number): Promise<void> {
  if (parent.metadata.hubSupersededBy === childSid) return;
  const document = { ...parent.metadata, hubSupersededBy: childSid };
  await commitMetadataVersion(tx, changes, { session: parent, outcome: { document, carried: [], cleared: [], dropped: [] }, by: 'hub', now });
}

/**
 * `session-start`: get-or-create by (namespace, tag), reopen an ended, idle or archived session and
 * open a new run. A `sid` that names a session of the namespace picks that session; any other sid is
 * ignored, exactly as if it did not exist. Metadata sent for an existing session is applied as a merge
 * patch, so a runner starting with a sparse cache can never erase anything by leaving it out.
 */
export function startSession(deps: HubDeps, actor: Actor, payload: SessionStartPayload): Promise<{ session: SessionSnapshot; created: boolean }> {
  // its session (by sid when given, else by tag) is read with the batch's (batch-reads.ts)
  const reads = { namespace: actor.namespace, ...(payload.sid !== undefined ? { sid: payload.sid } : {}), tag: payload.tag };
  return runWrite(deps, startSessionWork(deps, actor, payload), { ...actorWrite(actor), reads });
}

/**
 * The unit of work of `session-start`, for callers that run it inside their own write with their
 * own `now` (the hook route applies an event at the time it fired).
 */
export function startSessionWork(deps: HubDeps, actor: Actor, payload: SessionStartPayload): UnitOfWork<{ session: SessionSnapshot; created: boolean }> {
  if (payload.metadata) assertDocumentSize(payload.metadata, 'metadata');
  if (payload.metadata) assertResumeTokens(payload.metadata, 'metadata');
  return async (tx, changes, now) => {
    const linking = LINKING_SOURCES.has(payload.source) && payload.parentSid !== undefined;
    const parent = linking ? await getSession(tx, { namespace: actor.namespace, sid: payload.parentSid! }) : undefined;
    if (linking && !parent) throw hubError.notFound(payload.parentSid!);

    const existing =
      (payload.sid !== undefined ? await getSession(tx, { namespace: actor.namespace, sid: payload.sid }) : undefined) ??
      await getSessionByTag(tx, { namespace: actor.namespace, tag: payload.tag });
    const created = existing === undefined;
    const session = existing ?? await createSession(tx, changes, actor, payload, parent?.sid ?? null, now);

    if (!created) {
      if (session.flavor !== payload.flavor) await updateFlavor(tx, { sid: session.sid, flavor: payload.flavor });
      session.flavor = payload.flavor;
      if (payload.metadata && Object.keys(payload.metadata).length > 0) {
        const outcome = applyMetadataPatch(session.metadata, payload.metadata);
        if (!sameJson(outcome.document, session.metadata)) {
          await commitMetadataVersion(tx, changes, { session, outcome, by: actor.by, now });
        }
      }
      if (session.lifecycle.state !== 'running') await setLifecycle(tx, changes, session, { state: 'running', reason: payload.source, by: 'runner', now });
      await noteActivity(tx, changes, session, now);
    }
    await openRun(tx, changes, session, { now, pid: payload.pid ?? null, detached: payload.detached ?? false, hubId: deps.hubId });
    await setPresence(tx, changes, session, { active: true, activeAt: now, aliveAt: now, thinking: false });
    if (parent && parent.sid !== session.sid) await linkToParent(tx, changes, parent, session.sid, now);

    return { session: await toSnapshot(tx, deps, (await getSession(tx, { namespace: actor.namespace, sid: session.sid }))!), created };
  };
}
