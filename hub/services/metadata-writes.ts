import { RESUME_TOKEN_KEYS, storedTokenProblem } from '../../shared/flavors.js';
import { hubError } from '../../shared/errors.js';
import { sameJson, utf8ByteLength, type JsonObject } from '../../shared/protocol/json.js';
import { LIMITS } from '../../shared/protocol/limits.js';
import type { Writer } from '../../shared/protocol/session.js';
import type { Sql } from '../store/sql.js';
import { storeMetadataVersion } from '../store/metadata-versions.js';
import { trackResumeToken } from '../store/resume-tokens.js';
import type { StoredSession } from '../store/sessions.js';
import type { ChangeSet } from './changes.js';
import type { MergeOutcome } from './metadata-merge.js';

/** Checks a document's size; answers its JSON text, for the caller to store as is. */
export function assertDocumentSize(document: unknown, field: string): string {
  const json = JSON.stringify(document) ?? '';
  assertJsonSize(json, field);
  return json;
}

/**
 * Refuses a metadata write (a patch, a document, a session-start's metadata) that sets a resume
 * token no agent could have made: a resume token reaches an agent's command line on a Continue, so
 * one that could be read as an option, or holds whitespace, quotes or shell characters, is never
 * stored, whoever writes it (docs/security.md, "What runs").
 */
export function assertResumeTokens(incoming: JsonObject, field: string): void {
  for (const key of RESUME_TOKEN_KEYS) {
    if (!Object.hasOwn(incoming, key)) continue;
    const problem = storedTokenProblem(key, incoming[key]);
    if (problem !== null) throw hubError.invalidPayload(`${field}.${problem}`);
  }
}

/** The same check on a document already serialized. */
function assertJsonSize(json: string, field: string): void {
  const bytes = utf8ByteLength(json);
  if (bytes > LIMITS.maxDocumentBytes) {
    throw hubError.tooLarge(`${field} is ${bytes} bytes of JSON; the limit is ${LIMITS.maxDocumentBytes}`);
  }
}

/**
 * Stores a merged metadata document as the session's next version, with its history row and the
 * resume-token clocks. Every metadata write (runner, user, hub) goes through here.
 */
export async function commitMetadataVersion(
  sql: Sql,
  changes: ChangeSet,
  input: { session: StoredSession; outcome: MergeOutcome; by: Writer; now: number },
): Promise<number> {
  const { session, outcome, by, now } = input;
  // serialized once: the size check, the session row and the history row all use this text
  const metadataJson = JSON.stringify(outcome.document);
  assertJsonSize(metadataJson, 'the merged metadata');
  const version = session.metadataVersion + 1;
  await storeMetadataVersion(sql, {
    sid: session.sid,
    metadata: outcome.document,
    metadataJson,
    version,
    now,
    countsAsActivity: by !== 'hub',
    previousActivityAt: session.lastActivityAt,
    by,
    carried: outcome.carried,
    cleared: outcome.cleared,
    dropped: outcome.dropped,
  });
  await trackResumeTokenChanges(sql, { sid: session.sid, before: session.metadata, after: outcome.document, now });
  changes.changed(session, 'metadata').historyWritten(session, version);
  session.metadata = outcome.document;
  session.metadataVersion = version;
  session.updatedAt = now;
  if (by !== 'hub') session.lastActivityAt = now;
  return version;
}

/** Restarts a token's TTL clock only when its value changed. */
export async function trackResumeTokenChanges(sql: Sql, input: { sid: string; before: JsonObject; after: JsonObject; now: number }): Promise<void> {
  for (const key of RESUME_TOKEN_KEYS) {
    if (sameJson(input.before[key], input.after[key])) continue;
    await trackResumeToken(sql, { sid: input.sid, key, value: input.after[key], now: input.now });
  }
}
