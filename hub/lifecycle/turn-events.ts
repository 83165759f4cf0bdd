import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../../shared/protocol/json.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import type { PromptSubmitPayload, ToolUsePayload, TurnStopPayload } from '../../shared/protocol/lifecycle.js';
import type { ActivityStatus, TurnSummary } from '../../shared/protocol/session.js';
import { requireSession } from '../services/require-session.js';
import { runWrite, sessionWrite, type ChangeSet, type UnitOfWork } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { truncateJsonField, truncateUtf8 } from '../services/truncate.js';
import { openPromptTurn, type StoredSession } from '../store/sessions.js';
import { completeActivity, findActivityByToolUseId, findTurnByPromptId, getLatestPromptTurn, getTurn, insertActivity, insertTurn, landStopOnTimedOutTurn, touchTurn } from '../store/turns.js';
import type { Tx } from '../store/sql.js';
import { closeOpenTurn, noteActivity } from './transitions.js';
import { turnForActivity } from './turn-activity.js';
import { addTurnUsage } from './usage-events.js';

/** An actor's turn event to one session of its namespace: the session and its current turn are read with the batch's others. */
/** `prompt-submit`: opens a turn, closing an earlier open one as superseded. A repeated promptId answers the same turn. */
export function submitPrompt(deps: HubDeps, actor: Actor, payload: PromptSubmitPayload): Promise<{ turnId: string }> {
  return runWrite(deps, submitPromptWork(actor, payload), sessionWrite(actor, payload.sid));
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
    await openPromptTurn(tx, session, { turnId, prompt: text, now });
    changes.turn(session.namespace, (await getTurn(tx, turnId))!).currentTurnMoved(session);
    await noteActivity(tx, changes, session, now);
    return { turnId };
  };
}

/** `tool-use`: records activity once per toolUseId; long inputs and outputs are cut and flagged. */
export function recordToolUse(deps: HubDeps, actor: Actor, payload: ToolUsePayload): Promise<{ turnId: string; activityId: string }> {
  const write = sessionWrite(actor, payload.sid);
  return runWrite(deps, recordToolUseWork(actor, payload, payload.status ?? 'done'), payload.toolUseId === undefined ? write : { ...write, reads: { ...write.reads, toolUseIds: [payload.toolUseId] } });
}

/**
 * The unit of work of tool activity. `running`: the tool started (a hook's PreToolUse) and shows
 * as running until an activity with the same toolUseId arrives `done` or `failed`, which completes
 * it (its output and end time); any other repeat of a toolUseId answers the activity already stored.
 */
export function recordToolUseWork(actor: Actor, payload: ToolUsePayload, status: ActivityStatus): UnitOfWork<{ turnId: string; activityId: string; at: number }> {
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    const output = truncateJsonField(payload.output ?? null, LIMITS.maxToolFieldBytes);
    if (payload.toolUseId !== undefined) {
      const existing = await findActivityByToolUseId(tx, { sid: session.sid, toolUseId: payload.toolUseId });
      if (existing) {
        // a tool abandoned when its turn closed still takes its result (it did run)
        if ((existing.status === 'running' || existing.status === 'abandoned') && status !== 'running') {
          await completeActivity(tx, { activityId: existing.activityId, status, output: output.value as JsonValue | null, outputTruncated: output.truncated, endedAt: Math.max(now, existing.at) });
          await touchTurn(tx, { turnId: existing.turnId, at: now });
          changes.turn(session.namespace, (await getTurn(tx, existing.turnId))!);
          await noteActivity(tx, changes, session, now);
        }
        return { turnId: existing.turnId, activityId: existing.activityId, at: existing.at };
      }
    }
    const turn = await turnForActivity(tx, session, now);
    const input = truncateJsonField(payload.input ?? null, LIMITS.maxToolFieldBytes);
    const activityId = randomUUID();
    const at = Math.min(payload.at ?? now, now);
    await insertActivity(tx, {
      activityId,
      turnId: turn.turnId,
      sid: session.sid,
      toolUseId: payload.toolUseId ?? null,
      tool: payload.tool,
      input: input.value as JsonValue | null,
      output: output.value as JsonValue | null,
      at,
      truncated: input.truncated || output.truncated,
      status,
      endedAt: status === 'running' ? null : now,
    });
    await touchTurn(tx, { turnId: turn.turnId, at: now });
    changes.turn(session.namespace, (await getTurn(tx, turn.turnId))!);
    await noteActivity(tx, changes, session, now);
    return { turnId: turn.turnId, activityId, at };
  };
}

/** `turn-stop`: closes the open turn with the response summary and its usage totals (docs/usage.md). */
export function stopTurn(deps: HubDeps, actor: Actor, payload: TurnStopPayload): Promise<{ turn: TurnSummary | null }> {
  return runWrite(deps, stopTurnWork(deps, actor, payload), sessionWrite(actor, payload.sid, { usage: payload.usage !== undefined }));
}

/** The unit of work of `turn-stop` (the hook route runs it at the event's own time). */
export function stopTurnWork(deps: HubDeps, actor: Actor, payload: TurnStopPayload): UnitOfWork<{ turn: TurnSummary | null }> {
  return async (tx, changes, now) => {
    const session = await requireSession(tx, actor, payload.sid);
    const response = payload.response === undefined ? null : truncateUtf8(payload.response, LIMITS.maxPromptBytes).text;
    const status = payload.status ?? 'completed';
    // stored before the close, so the closed turn's one `turn` event carries it
    const open = session.currentTurnId === null ? undefined : await getTurn(tx, session.currentTurnId);
    const turn = open?.status === 'open'
      ? await stopOpenTurn(tx, changes, deps, { session, open, usage: payload.usage, status, response, now })
      : await landOnTimedOutTurn(tx, changes, deps, { session, usage: payload.usage, status, response, now });
    await noteActivity(tx, changes, session, now);
    return { turn };
  };
}

interface StopInput {
  session: StoredSession;
  usage: TurnStopPayload['usage'];
  status: 'completed' | 'aborted' | 'error';
  response: string | null;
  now: number;
}

async function stopOpenTurn(tx: Tx, changes: ChangeSet, deps: HubDeps, input: StopInput & { open: TurnSummary }): Promise<TurnSummary | null> {
  const { session, open } = input;
  if (input.usage !== undefined) await addTurnUsage(tx, changes, deps, { session, turn: open, reports: input.usage });
  return closeOpenTurn(tx, changes, session, { status: input.status, response: input.response, now: input.now });
}

/**
 * Spec 9: a stop that comes after the sweep closed its turn as `timeout`, with no newer turn opened
 * (the session's latest prompt's turn is that one: a recovery turn holding late tool activity is
 * not an opened turn), lands on it: the stop's status, end, response and usage. Anything else (no
 * turn, or the latest one ended otherwise) has no turn to stop: null.
 */
async function landOnTimedOutTurn(tx: Tx, changes: ChangeSet, deps: HubDeps, input: StopInput): Promise<TurnSummary | null> {
  const { session } = input;
  if (session.currentTurnId !== null) await closeOpenTurn(tx, changes, session, { status: input.status, response: input.response, now: input.now });
  const latest = await getLatestPromptTurn(tx, session.sid);
  if (latest?.status !== 'timeout') return null;
  if (input.usage !== undefined) await addTurnUsage(tx, changes, deps, { session, turn: latest, reports: input.usage });
  await landStopOnTimedOutTurn(tx, { turnId: latest.turnId, status: input.status, closedAt: Math.max(input.now, latest.closedAt ?? input.now), response: input.response });
  const landed = (await getTurn(tx, latest.turnId))!;
  changes.turn(session.namespace, landed);
  return landed;
}
