/**
 * `update-metadata` and `update-state` (spec section 3): compare-and-set on the version, the merge
 * rules, the history row and the event in one transaction; `requestId` makes a retry a no-op.
 */
import { requireSession } from './require-session.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { UpdateMetadataAck, UpdateMetadataPayload, UpdateStateAck, UpdateStatePayload } from '../../shared/protocol/versioned.js';
import { archiveSession, noteActivity } from '../lifecycle/transitions.js';
import { runStatusFromReason } from '../lifecycle/run-status.js';
import { findAppliedRequest, recordAppliedRequest } from '../store/applied-requests.js';
import { updateAgentState } from '../store/sessions.js';
import type { Actor, HubDeps } from './deps.js';
import { applyMetadataPatch, mergeWholeDocument } from './metadata-merge.js';
import { assertDocumentSize, commitMetadataVersion } from './metadata-writes.js';
import { runWrite, runWriteBatched, type ChangeSet } from './changes.js';

/** A metadata write that sets `lifecycleState: 'archived'` is also an archive (spec section 6). */
function archiveRequest(incoming: JsonObject): { reason: string } | null {
  if (incoming.lifecycleState !== 'archived') return null;
  const reason = typeof incoming.archiveReason === 'string' && incoming.archiveReason !== '' ? incoming.archiveReason : 'archived';
  return { reason };
}

/** The unit of work of one `update-metadata`; checks that need no database run right away. */
function metadataWrite(deps: HubDeps, actor: Actor, payload: UpdateMetadataPayload): (changes: ChangeSet, now: number) => UpdateMetadataAck {
  const incoming = (payload.patch ?? payload.metadata)!;
  assertDocumentSize(incoming, payload.patch ? 'patch' : 'metadata');
  return (changes, now): UpdateMetadataAck => {
    const session = requireSession(deps, actor, payload.sid);
    if (payload.requestId !== undefined) {
      const applied = findAppliedRequest(deps.db, { sid: session.sid, field: 'metadata', requestId: payload.requestId });
      if (applied) return { result: 'success', version: applied.version, metadata: applied.value as JsonObject };
    }
    if (session.metadataVersion !== payload.expectedVersion) {
      return { result: 'version-mismatch', version: session.metadataVersion, metadata: session.metadata };
    }
    const outcome = payload.patch ? applyMetadataPatch(session.metadata, payload.patch) : mergeWholeDocument(session.metadata, incoming);
    const version = commitMetadataVersion(deps.db, changes, { session, outcome, by: actor.by, now });
    noteActivity(deps.db, changes, session, now);
    const archive = archiveRequest(incoming);
    if (archive && session.lifecycle.state !== 'archived') {
      archiveSession(deps.db, changes, session, { reason: archive.reason, by: actor.by, status: runStatusFromReason(archive.reason), now });
    }
    if (payload.requestId !== undefined) {
      recordAppliedRequest(deps.db, { sid: session.sid, field: 'metadata', requestId: payload.requestId, version, value: outcome.document, at: now });
    }
    return { result: 'success', version, metadata: outcome.document };
  };
}

export function updateMetadata(deps: HubDeps, actor: Actor, payload: UpdateMetadataPayload): UpdateMetadataAck {
  return runWrite(deps, metadataWrite(deps, actor, payload), { exceptSocketId: actor.socketId });
}

/** `update-metadata` from a socket: group-committed with the writes that arrive with it. */
export function updateMetadataBatched(deps: HubDeps, actor: Actor, payload: UpdateMetadataPayload): Promise<UpdateMetadataAck> {
  return runWriteBatched(deps, metadataWrite(deps, actor, payload), { exceptSocketId: actor.socketId });
}

/** The unit of work of one `update-state`. */
function stateWrite(deps: HubDeps, actor: Actor, payload: UpdateStatePayload): (changes: ChangeSet, now: number) => UpdateStateAck {
  if (payload.agentState !== null) assertDocumentSize(payload.agentState, 'agentState');
  return (changes, now): UpdateStateAck => {
    const session = requireSession(deps, actor, payload.sid);
    if (payload.requestId !== undefined) {
      const applied = findAppliedRequest(deps.db, { sid: session.sid, field: 'agentState', requestId: payload.requestId });
      if (applied) return { result: 'success', version: applied.version, agentState: applied.value as JsonObject | null };
    }
    if (session.agentStateVersion !== payload.expectedVersion) {
      return { result: 'version-mismatch', version: session.agentStateVersion, agentState: session.agentState };
    }
    const version = session.agentStateVersion + 1;
    updateAgentState(deps.db, { sid: session.sid, agentState: payload.agentState, version, now });
    session.agentState = payload.agentState;
    session.agentStateVersion = version;
    session.lastActivityAt = now;
    changes.changed(session, 'agentState');
    noteActivity(deps.db, changes, session, now);
    if (payload.requestId !== undefined) {
      recordAppliedRequest(deps.db, { sid: session.sid, field: 'agentState', requestId: payload.requestId, version, value: payload.agentState, at: now });
    }
    return { result: 'success', version, agentState: payload.agentState };
  };
}

export function updateState(deps: HubDeps, actor: Actor, payload: UpdateStatePayload): UpdateStateAck {
  return runWrite(deps, stateWrite(deps, actor, payload), { exceptSocketId: actor.socketId });
}

/** `update-state` from a socket: group-committed with the writes that arrive with it. */
export function updateStateBatched(deps: HubDeps, actor: Actor, payload: UpdateStatePayload): Promise<UpdateStateAck> {
  return runWriteBatched(deps, stateWrite(deps, actor, payload), { exceptSocketId: actor.socketId });
}
