/**
 * The agent's own words in a turn (`turn_texts`, migration 022): the text blocks its hook bridge
 * read from the transcript, each placed among the turn's tool uses by its time. Keyed by the hook
 * event that carried it and its index there, so a re-sent event adds nothing.
 */
import type { AgentText } from '../../shared/protocol/session.js';
import type { RowsWrite, Sql } from './sql.js';

interface TurnTextRow {
  at: number;
  text: string;
  cut: number;
}

const INSERT: RowsWrite = {
  one: `
  INSERT INTO turn_texts (sid, event_id, idx, turn_id, at, text, cut) VALUES (@sid, @eventId, @idx, @turnId, @at, @text, @cut)
  ON CONFLICT DO NOTHING`,
  // a batch's texts in one statement (PostgreSQL), sent with the batch's commit: no round trip of their own
  many: `
  INSERT INTO turn_texts (sid, event_id, idx, turn_id, at, text, cut)
  SELECT * FROM unnest(CAST(@sid AS TEXT[]), CAST(@eventId AS TEXT[]), CAST(@idx AS INTEGER[]), CAST(@turnId AS TEXT[]),
    CAST(@at AS BIGINT[]), CAST(@text AS TEXT[]), CAST(@cut AS INTEGER[]))
  ON CONFLICT DO NOTHING`,
  merge: 'append',
};
// insertion order (idx within an event) breaks ties between texts of the same millisecond
const TEXTS_OF_TURN = `SELECT at, text, cut FROM turn_texts WHERE turn_id = @turnId ORDER BY at, event_id, idx`;

/** Adds an event's texts to a turn (deferred on PostgreSQL); a text of the same event and index already stored stays as it is. */
export async function insertTurnTexts(sql: Sql, input: { sid: string; eventId: string; turnId: string; texts: readonly AgentText[] }): Promise<void> {
  for (const [idx, { at, text, truncated }] of input.texts.entries()) {
    await sql.write(INSERT, { sid: input.sid, eventId: input.eventId, idx, turnId: input.turnId, at, text, cut: truncated ? 1 : 0 });
  }
}

/** The turn's texts in the order the agent wrote them. */
export async function listTurnTexts(sql: Sql, turnId: string): Promise<AgentText[]> {
  return (await sql.all<TurnTextRow>(TEXTS_OF_TURN, { turnId })).map((row) => ({ at: Number(row.at), text: row.text, truncated: row.cut === 1 }));
}
