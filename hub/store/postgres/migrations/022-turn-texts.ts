/** As hub/store/sqlite/migrations/022-turn-texts.ts: the agent's own words in a turn, placed among its tool uses by `at`. */
export const migration022 = `
CREATE TABLE turn_texts (
  sid TEXT NOT NULL,
  event_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  turn_id TEXT NOT NULL,
  at BIGINT NOT NULL,
  text TEXT NOT NULL,
  cut INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sid, event_id, idx)
);
CREATE INDEX turn_texts_by_turn ON turn_texts (turn_id, at);
`;
