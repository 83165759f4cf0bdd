/**
 * `update-metadata` and `update-state` (spec section 3): compare-and-set on the version, the merge
 * rules, the history row and the event in one transaction; `requestId` makes a retry a no-op.
 */
import { requireSession } from '../services/require-session.js';
import { sameJson, type JsonObject } from '../../shared/protocol/json.js';
import type { UpdateMetadataAck, UpdateMetadataPayload, UpdateStateAck, UpdateStatePayload } from '../../shared/protocol/versioned.js';
import { archiveSession, noteActivity } from './transitions.js';
import { runStatusFromArchiveReason } from './run-status.js';
import { findAppliedRequest, recordAppliedRequest, type VersionedField } from '../store/applied-requests.js';
import { updateAgentState, type StoredSession } from '../store/sessions.js';
import type { Tx } from '../store/sql.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { applyMetadataPatch, mergeWholeDocument } from '../services/metadata-merge.js';
import { assertDocumentSize, assertResumeTokens, commitMetadataVersion } from '../services/metadata-writes.js';
import { actorWrite, runWrite, type UnitOfWork } from '../services/changes.js';
import type { Contention } from '../services/loser-first.js';

/** The keys of an archive record written through metadata. */
const ARCHIVE_RECORD_KEYS = ['lifecycleState', 'lifecycleStateSince', 'archiveReason', 'archivedBy'];

/**
 * A metadata write that sets `lifecycleState: 'archived'` is also an archive (spec section 6). A write
 * that leaves the stored archive record as it was does not set it: after a reopen the stored document
 * still says archived, and a runner re-sending that document must not archive the session again
 * (ending its new live run).
 */
function archiveRequest(incoming: JsonObject, stored: JsonObject, merged: JsonObject): { reason: string } | null {
  if (incoming.lifecycleState !== 'archived') return null;
  if (ARCHIVE_RECORD_KEYS.every((key) => sameJson(stored[key], merged[key]))) return null;
  const reason = typeof incoming.archiveReason === 'string' && incoming.archiveReason !== '' ? incoming.archiveReason : 'archived';
  return { reason };
}

/**
 * The compare-and-set shared by both versioned fields: an already-applied `requestId` answers what
 * it produced; a stale `expectedVersion` answers the stored version and value; otherwise `apply`
 * writes the next version, and the request is remembered with what it produced.
 */
async function compareAndSet<Value>(
  tx: Tx,
  actor: Actor,
  payload: { sid: string; expectedVersion: number; requestId?: string },
  field: VersionedField,
  read: (session: StoredSession) => { version: number; value: Value },
  apply: (session: StoredSession) => Promise<{ version: number; value: Value }>,
  now: number,
): Promise<{ result: 'success' | 'version-mismatch'; version: number; value: Value }> {
  const session = await requireSession(tx, actor, payload.sid);
  if (payload.requestId !== undefined) {
    const applied = await findAppliedRequest(tx, { sid: session.sid, field, requestId: payload.requestId });
    if (applied) return { result: 'success', version: applied.version, value: applied.value as Value };
  }
  const current = read(session);
  if (current.version !== payload.expectedVersion) return { result: 'version-mismatch', ...current };
  const written = await apply(session);
  if (payload.requestId !== undefined) {
    await recordAppliedRequest(tx, { sid: session.sid, field, requestId: payload.requestId, version: written.version, value: written.value, at: now });
  }
  return { result: 'success', ...written };
}

/** A socket's write races others on the session's field: its losers go first in the next batch. */
function contentionOf(actor: Actor, sid: string, field: VersionedField): Contention | undefined {
  if (actor.socketId === undefined) return undefined;
  return { key: `${sid}:${field}`, by: actor.socketId, lost: (ack) => (ack as { result?: string }).result === 'version-mismatch' };
}

/**
 * A versioned write touches only its actor's namespace (the session is looked up in it; an archive
 * through metadata ends that session's run): it commits in that namespace's batches, with its
 * session and requestId read for the whole batch at once.
 */
function writeOptions(actor: Actor, payload: { sid: string; requestId?: string }, field: VersionedField) {
  return {
    ...actorWrite(actor),
    contention: contentionOf(actor, payload.sid, field),
    reads: {
      namespace: actor.namespace,
      sid: payload.sid,
      ...(payload.requestId !== undefined ? { applied: { field, requestId: payload.requestId } } : {}),
    },
  };
}

/** The unit of work of one `update-metadata`; checks that need no database run right away. */
function metadataWrite(actor: Actor, payload: UpdateMetadataPayload): UnitOfWork<UpdateMetadataAck> {
  const incoming = (payload.patch ?? payload.metadata)!;
  assertDocumentSize(incoming, payload.patch ? 'patch' : 'metadata');
  assertResumeTokens(incoming, payload.patch ? 'patch' : 'metadata');
  return async (tx, changes, now) => {
    const { result, version, value } = await compareAndSet(
      tx,
      actor,
      payload,
      'metadata',
      (session) => ({ version: session.metadataVersion, value: session.metadata }),
      async (session) => {
        const outcome = payload.patch ? applyMetadataPatch(session.metadata, payload.patch) : mergeWholeDocument(session.metadata, incoming);
        const archive = archiveRequest(incoming, session.metadata, outcome.document);
        const version = await commitMetadataVersion(tx, changes, { session, outcome, by: actor.by, now });
        await noteActivity(tx, changes, session, now);
        if (archive && session.lifecycle.state !== 'archived') {
          await archiveSession(tx, changes, session, { reason: archive.reason, by: actor.by, status: runStatusFromArchiveReason(archive.reason), now });
        }
        return { version, value: outcome.document };
      },
      now,
    );
    return { result, version, metadata: value };
  };
}

/** `update-metadata`: group-committed with the writes that arrive with it. */
export function updateMetadata(deps: HubDeps, actor: Actor, payload: UpdateMetadataPayload): Promise<UpdateMetadataAck> {
  return runWrite(deps, metadataWrite(actor, payload), writeOptions(actor, payload, 'metadata'));
}

/** The unit of work of one `update-state`: whole-document replace, no merge. */
function stateWrite(actor: Actor, payload: UpdateStatePayload): UnitOfWork<UpdateStateAck> {
  // serialized once: the size check's text is the row's
  const agentStateJson = payload.agentState === null ? null : assertDocumentSize(payload.agentState, 'agentState');
  return async (tx, changes, now) => {
    const { result, version, value } = await compareAndSet(
      tx,
      actor,
      payload,
      'agentState',
      (session) => ({ version: session.agentStateVersion, value: session.agentState }),
      async (session) => {
        const version = session.agentStateVersion + 1;
        await updateAgentState(tx, { sid: session.sid, agentState: payload.agentState, agentStateJson, version, now });
        session.agentState = payload.agentState;
        session.agentStateVersion = version;
        session.lastActivityAt = now;
        changes.changed(session, 'agentState');
        await noteActivity(tx, changes, session, now);
        return { version, value: payload.agentState };
      },
      now,
    );
    return { result, version, agentState: value };
  };
}

/** `update-state`: group-committed with the writes that arrive with it. */
export function updateState(deps: HubDeps, actor: Actor, payload: UpdateStatePayload): Promise<UpdateStateAck> {
  return runWrite(deps, stateWrite(actor, payload), writeOptions(actor, payload, 'agentState'));
}
