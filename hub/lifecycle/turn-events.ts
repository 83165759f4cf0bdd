import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../../shared/protocol/json.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import type { PromptSubmitPayload, ToolUsePayload, TurnStopPayload } from '../../shared/protocol/lifecycle.js';
import type { ActivityStatus, TurnSummary } from '../../shared/protocol/session.js';
import { requireSession } from '../services/require-session.js';
import { runWrite, type UnitOfWork } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { truncateJsonField, truncateUtf8 } from '../services/truncate.js';
import { updateCurrentTurn, type StoredSession } from '../store/sessions.js';
import { completeActivity, findActivityByToolUseId, findTurnByPromptId, getLatestTurn, getTurn, insertActivity, insertTurn } from '../store/turns.js';
import { closeOpenTurn, noteActivity } from './transitions.js';
import { addTurnUsage } from './usage-events.js';
import type { Tx } from '../store/sql.js';

/** Tool activity within this long after a turn closed still belongs to it (spec section 6). */
const LATE_ACTIVITY_WINDOW_MS = 60_000;

/** `prompt-submit`: opens a turn, closing an earlier open one as superseded. A repeated promptId answers the same turn. */
export function submitPrompt(deps: HubDeps, actor: Actor, payload: PromptSubmitPayload): Promise<{ turnId: string }> {
  return runWrite(deps, submitPromptWork(actor, payload), { exceptSocketId: actor.socketId, namespace: actor.namespace });
}

/** The unit of work of `prompt-submit` (the hook route runs it at the event's own time). */
export function submitPromptWork(actor: Actor, payload: PromptSubmitPayload): UnitOfWork<{ turnId: string }> {
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    if (payload.promptId !== undefined) {
      const existing = await findTurnByPromptId(tx, { sid: session.sid, promptId: payload.promptId });
      if (existing) return { turnId: existing.turnId };
    }
    await closeOpenTurn(tx, changes, session, { status: 'superseded', response: null, now });
    const { text, truncated } = truncateUtf8(payload.prompt, LIMITS.maxPromptBytes);
    const turnId = randomUUID();
    await insertTurn(tx, {
      turnId,
      sid: session.sid,
      kind: 'prompt',
      prompt: text,
      promptTruncated: truncated,
      promptId: payload.promptId ?? null,
      status: 'open',
      openedAt: now,
      closedAt: null,
    });
    await updateCurrentTurn(tx, { sid: session.sid, turnId, now });
    session.currentTurnId = turnId;
    changes.turn(session.namespace, (await getTurn(tx, turnId))!).currentTurnMoved(session);
    await noteActivity(tx, changes, session, now);
    return { turnId };
  };
}

/** Where tool activity goes: the open turn, else the latest turn if it closed within a minute, else a new recovery turn. */
export async function turnForActivity(tx: Tx, session: StoredSession, now: number): Promise<TurnSummary> {
  if (session.currentTurnId !== null) {
    const open = await getTurn(tx, session.currentTurnId);
    if (open?.status === 'open') return open;
  }
  const latest = await getLatestTurn(tx, session.sid);
  if (latest && latest.closedAt !== null && now - latest.closedAt <= LATE_ACTIVITY_WINDOW_MS) return latest;
  const turnId = randomUUID();
  await insertTurn(tx, {
    turnId,
    sid: session.sid,
    kind: 'recovery',
    prompt: null,
    promptTruncated: false,
    promptId: null,
    status: 'completed',
    openedAt: now,
    closedAt: now,
  });
  return (await getTurn(tx, turnId))!;
}

/** `tool-use`: records activity once per toolUseId; long inputs and outputs are cut and flagged. */
export function recordToolUse(deps: HubDeps, actor: Actor, payload: ToolUsePayload): Promise<{ turnId: string; activityId: string }> {
  return runWrite(deps, recordToolUseWork(actor, payload, 'done'), { exceptSocketId: actor.socketId, namespace: actor.namespace });
}

/**
 * The unit of work of tool activity. `running`: the tool started (a hook's PreToolUse) and shows
 * as running until an activity with the same toolUseId arrives `done` or `failed`, which completes
 * it (its output and end time); any other repeat of a toolUseId answers the activity already stored.
 */
export function recordToolUseWork(actor: Actor, payload: ToolUsePayload, status: ActivityStatus): UnitOfWork<{ turnId: string; activityId: string }> {
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    const output = truncateJsonField(payload.output ?? null, LIMITS.maxToolFieldBytes);
    if (payload.toolUseId !== undefined) {
      const existing = await findActivityByToolUseId(tx, { sid: session.sid, toolUseId: payload.toolUseId });
      if (existing) {
        if (existing.status === 'running' && status !== 'running') {
          await completeActivity(tx, { activityId: existing.activityId, status, output: output.value as JsonValue | null, outputTruncated: output.truncated, endedAt: Math.max(now, existing.at) });
          changes.turn(session.namespace, (await getTurn(tx, existing.turnId))!);
          await noteActivity(tx, changes, session, now);
        }
        return { turnId: existing.turnId, activityId: existing.activityId };
      }
    }
    const turn = await turnForActivity(tx, session, now);
    const input = truncateJsonField(payload.input ?? null, LIMITS.maxToolFieldBytes);
    const activityId = randomUUID();
    await insertActivity(tx, {
      activityId,
      turnId: turn.turnId,
      sid: session.sid,
      toolUseId: payload.toolUseId ?? null,
      tool: payload.tool,
      input: input.value as JsonValue | null,
      output: output.value as JsonValue | null,
      at: Math.min(payload.at ?? now, now),
      truncated: input.truncated || output.truncated,
      status,
      endedAt: status === 'running' ? null : now,
    });
    changes.turn(session.namespace, (await getTurn(tx, turn.turnId))!);
    await noteActivity(tx, changes, session, now);
    return { turnId: turn.turnId, activityId };
  };
}

/** `turn-stop`: closes the open turn with the response summary and its usage totals (docs/usage.md). */
export function stopTurn(deps: HubDeps, actor: Actor, payload: TurnStopPayload): Promise<{ turn: TurnSummary | null }> {
  return runWrite(deps, stopTurnWork(deps, actor, payload), { exceptSocketId: actor.socketId, namespace: actor.namespace });
}

/** The unit of work of `turn-stop` (the hook route runs it at the event's own time). */
export function stopTurnWork(deps: HubDeps, actor: Actor, payload: TurnStopPayload): UnitOfWork<{ turn: TurnSummary | null }> {
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    const response = payload.response === undefined ? null : truncateUtf8(payload.response, LIMITS.maxPromptBytes).text;
    // stored before the close, so the closed turn's one `turn` event carries it
    const open = session.currentTurnId === null ? undefined : await getTurn(tx, session.currentTurnId);
    if (payload.usage !== undefined && open?.status === 'open') await addTurnUsage(tx, changes, deps, { session, turn: open, reports: payload.usage });
    const turn = await closeOpenTurn(tx, changes, session, { status: payload.status ?? 'completed', response, now });
    await noteActivity(tx, changes, session, now);
    return { turn };
  };
}
