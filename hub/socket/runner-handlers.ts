import {
  PromptSubmitPayloadSchema,
  ResumeFailedPayloadSchema,
  SessionAlivePayloadSchema,
  SessionArchivePayloadSchema,
  SessionEndPayloadSchema,
  SessionJoinPayloadSchema,
  SessionStartPayloadSchema,
  ToolUsePayloadSchema,
  TurnStopPayloadSchema,
  UsagePayloadSchema,
} from '../../shared/protocol/lifecycle.js';
import { ApprovalAskPayloadSchema, AttentionPayloadSchema } from '../../shared/protocol/attention.js';
import { UpdateMetadataPayloadSchema, UpdateStatePayloadSchema } from '../../shared/protocol/versioned.js';
import type { RunnerBindings } from '../lifecycle/bindings.js';
import { resumeFailed } from '../lifecycle/resume-failed.js';
import { archive, endSession, finalizeSession, heartbeat, joinSession, runnerSocketsLost } from '../lifecycle/session-events.js';
import { startSession } from '../lifecycle/session-start.js';
import { recordToolUse, stopTurn, submitPrompt } from '../lifecycle/turn-events.js';
import { askPerson } from '../people/approval-ask.js';
import { setAttention } from '../people/attention.js';
import { offerQueuedTo } from '../people/messages.js';
import { proveTaker } from '../people/message-takers.js';
import { runWrite } from '../services/changes.js';
import type { Taker } from '../../shared/protocol/messages.js';
import { reportUsage } from '../lifecycle/usage-events.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { updateMetadata, updateState } from '../lifecycle/versioned-writes.js';
import type { RunnerClientToServerEvents } from '../../shared/protocol/events.js';
import { eventHandlers, type HandleOptions } from './handle.js';
import { holdLive, releaseLive } from './publisher.js';
import { planReplay, replayedThrough, sendReplay, type ReplayPlan } from './replay.js';
import { rooms } from './rooms.js';
import type { RunnerSocket } from './types.js';

function actorOf(socket: RunnerSocket): Actor {
  const { identity } = socket.data;
  return { namespace: identity.namespace, role: identity.role, by: identity.role === 'admin' ? 'user' : 'runner', socketId: socket.id };
}

/** The `/runner` events (spec sections 3 and 6). */
export function registerRunnerHandlers(socket: RunnerSocket, deps: HubDeps, bindings: RunnerBindings, options: HandleOptions): void {
  const actor = actorOf(socket);
  const on = eventHandlers<RunnerClientToServerEvents>(socket, options);
  /** The socket is gone: the sessions it leaves with no bound socket go inactive and their runs start their grace. */
  const loseSocket = () => {
    runnerSocketsLost(deps, bindings.unbindSocket(socket.id)).catch((error: unknown) =>
      socket.data.log.error({ err: error }, 'could not record runner disconnect'),
    );
  };

  on('update-metadata', UpdateMetadataPayloadSchema, 'versioned', (payload) => updateMetadata(deps, actor, payload));
  on('update-state', UpdateStatePayloadSchema, 'versioned', (payload) => updateState(deps, actor, payload));

  /** After the ack: the person's messages queued for the session go to this runner, in order. */
  const offerQueued = (sid: string) => {
    offerQueuedTo(deps, { namespace: actor.namespace, sid }, socket.id).catch((error: unknown) =>
      socket.data.log.warn({ err: error, sid }, 'could not offer queued messages'),
    );
  };
  /** Whether this socket is the session's own taker (its taker key): then it is offered the session's messages; else why not. */
  const proveSocket = async (sid: string, taker: Taker | undefined): Promise<string | undefined> => {
    const proof = await runWrite(deps, (tx, _changes, now) => proveTaker(tx, { namespace: actor.namespace, sid }, taker, now, { note: true }));
    if (!proof.ok) return proof.why;
    await socket.join(rooms.takers(sid));
    return undefined;
  };

  on('session-start', SessionStartPayloadSchema, 'ok', async (payload, ctx) => {
    const { session, created } = await startSession(deps, actor, payload);
    bindings.bind(socket.id, session.sid);
    // dropped while the write committed: its disconnect found nothing to unbind, so this binding would
    // outlive the socket and keep the session's run from its grace for good. Lost now instead.
    if (socket.disconnected) return loseSocket(), { ok: true, session, created };
    void socket.join(rooms.session(session.sid));
    const takerRefused = await proveSocket(session.sid, payload.taker);
    if (takerRefused === undefined) ctx.afterAck(() => offerQueued(session.sid));
    return { ok: true, session, created, ...(takerRefused === undefined ? {} : { takerRefused }) };
  });

  on('session-join', SessionJoinPayloadSchema, 'ok', async (payload, ctx) => {
    const session = await joinSession(deps, bindings, actor, payload);
    // dropped while the join committed: undo the binding its transaction made (as session-start)
    if (socket.disconnected) return loseSocket(), { ok: true, session };
    const room = rooms.session(session.sid);
    // live updates wait while the replay is read, then follow it (none of them twice)
    holdLive(socket, room);
    void socket.join(room);
    let replay: ReplayPlan;
    let takerRefused: string | undefined;
    try {
      replay = await planReplay(deps.store, { namespace: actor.namespace, sinceSeq: payload.sinceSeq ?? socket.data.lastSeq, sids: new Set([session.sid]) });
      takerRefused = await proveSocket(session.sid, payload.taker);
    } catch (error) {
      releaseLive(socket, room, undefined);
      throw error;
    }
    ctx.afterAck(() => {
      sendReplay(socket, replay);
      releaseLive(socket, room, replayedThrough(replay));
      if (takerRefused === undefined) offerQueued(session.sid);
    });
    return { ok: true, session, ...(takerRefused === undefined ? {} : { takerRefused }) };
  });

  on('prompt-submit', PromptSubmitPayloadSchema, 'ok', async (payload) => ({ ok: true, ...(await submitPrompt(deps, actor, payload)) }));
  on('tool-use', ToolUsePayloadSchema, 'ok', async (payload) => ({ ok: true, ...(await recordToolUse(deps, actor, payload)) }));
  on('turn-stop', TurnStopPayloadSchema, 'ok', async (payload) => ({ ok: true, ...(await stopTurn(deps, actor, payload)) }));
  on('usage', UsagePayloadSchema, 'ok', async (payload) => ({ ok: true, ...(await reportUsage(deps, actor, payload)) }));
  on('session-end', SessionEndPayloadSchema, 'ok', async (payload) => ({ ok: true, session: await endSession(deps, actor, payload) }));
  on('session-finalize', SessionEndPayloadSchema, 'ok', async (payload) => ({
    ok: true,
    session: await finalizeSession(deps, bindings, actor, payload),
  }));
  on('session-archive', SessionArchivePayloadSchema, 'ok', async (payload) => ({ ok: true, session: await archive(deps, actor, payload) }));
  on('session-alive', SessionAlivePayloadSchema, 'ok', async (payload) => {
    await heartbeat(deps, actor, payload, bindings.isSocketBound(socket.id, payload.sid));
    return { ok: true };
  });
  on('resume-failed', ResumeFailedPayloadSchema, 'ok', (payload) => resumeFailed(deps, actor, payload));
  on('attention', AttentionPayloadSchema, 'ok', async (payload) => ({ ok: true, attention: await setAttention(deps, actor, payload) }));
  on('approval-ask', ApprovalAskPayloadSchema, 'ok', async (payload) => {
    // the runner gone: its approval ends abandoned, nobody is told "allowed" with no one to hear it
    const gone = new AbortController();
    const abort = () => gone.abort();
    socket.once('disconnect', abort);
    try {
      return await askPerson(deps, actor, payload, gone.signal);
    } finally {
      socket.off('disconnect', abort);
    }
  });

  socket.on('disconnect', (reason) => {
    socket.data.log.debug({ reason }, 'runner disconnected');
    loseSocket();
  });
}
