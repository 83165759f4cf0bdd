/**
 * An `update-session` event whose metadata is a version the same transaction wrote to
 * metadata_history keeps that version here and null as the document in its body: replay puts the
 * history row's text back (hub/store/events.ts). Events stored before this migration have NULL.
 */
export const migration012 = `
ALTER TABLE events ADD COLUMN metadata_version BIGINT;
`;
