/**
 * The agent's own words a hook event carries (`texts`, read by the bridge from the transcript:
 * docs/hooks.md), kept with the turn they belong to, placed among its tool uses.
 *
 * Where a text goes: the bridge sends at each tool hook what the agent wrote since its last read,
 * which is always before that tool call (the model writes its text, then calls; the transcript may
 * hold the text only by the tool's end). So a tool event's texts go before its tool use, and a
 * turn-stop's at the end of the turn. Each is placed at the time the transcript gives it, held
 * between the turn's opening and that bound: the order stays right whatever the two clocks say.
 */
import type { AgentTextReport } from '../../shared/protocol/hooks.js';
import { getSession } from '../store/sessions.js';
import { getTurn } from '../store/turns.js';
import { insertTurnTexts } from '../store/turn-texts.js';
import type { Tx } from '../store/sql.js';

/** The texts placed in the turn `turnId`, none later than `notAfter` nor before the turn opened. */
export async function recordAgentTexts(tx: Tx, input: { sid: string; eventId: string; turnId: string; notAfter: number; texts: readonly AgentTextReport[] }): Promise<void> {
  if (input.texts.length === 0) return;
  const turn = await getTurn(tx, input.turnId);
  if (!turn) return;
  const from = Math.min(turn.openedAt, input.notAfter);
  const texts = input.texts.map(({ text, at, cut }) => ({ text, truncated: cut === true, at: Math.min(Math.max(at ?? input.notAfter, from), input.notAfter) }));
  await insertTurnTexts(tx, { sid: input.sid, eventId: input.eventId, turnId: turn.turnId, texts });
}

/**
 * The texts of an event that is no tool's (a turn-stop): into the session's open turn, at the
 * event's time at the latest. Called before the event closes the turn. None open: they are dropped
 * (a turn the hub timed out already; its closing text still lands as its response).
 */
export async function recordTextsInOpenTurn(tx: Tx, input: { namespace: string; sid: string; eventId: string; at: number; texts: readonly AgentTextReport[] }): Promise<void> {
  if (input.texts.length === 0) return;
  const session = await getSession(tx, { namespace: input.namespace, sid: input.sid });
  const open = session?.currentTurnId ? await getTurn(tx, session.currentTurnId) : undefined;
  if (open?.status !== 'open') return;
  await recordAgentTexts(tx, { sid: input.sid, eventId: input.eventId, turnId: open.turnId, notAfter: input.at, texts: input.texts });
}
