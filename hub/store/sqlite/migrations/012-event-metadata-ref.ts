/**
 * An `update-session` event whose metadata is a version the same transaction wrote to
 * metadata_history keeps that version here and null as the document in its body: replay puts the
 * history row's text back (hub/store/events.ts). A ~1 KiB document is then written once per write,
 * not twice. Events stored before this migration have NULL and their whole body.
 */
export const migration012 = `
ALTER TABLE events ADD COLUMN metadata_version INTEGER;
`;
