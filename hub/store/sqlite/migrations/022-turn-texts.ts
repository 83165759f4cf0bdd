/**
 * The agent's own words in a turn (issue 34 point 8): the text blocks of its messages between tool
 * calls and at the end of its turn, read by the hook bridge from the agent's transcript and sent
 * with a hook event. `at` places a text among the turn's tool uses (activities.at); `ord` keeps an
 * event's texts in their order. One row per (session, event id, index): a re-sent event adds none.
 */
export const migration022 = `
CREATE TABLE turn_texts (
  sid TEXT NOT NULL,
  event_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  turn_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  text TEXT NOT NULL,
  cut INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sid, event_id, idx)
);
CREATE INDEX turn_texts_by_turn ON turn_texts (turn_id, at);
`;
