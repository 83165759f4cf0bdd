/**
 * Who may take a session's messages (docs/messages.md, "Who takes a message"; issue 33): only the
 * agent session's own processes. Every runner token of a tenant can name any session (its sid, or
 * its tag: both readable with that token), so naming one proves nothing; the proof is a secret the
 * session's first process chose and every later process of the same session shares (the hook
 * bridge's key file for that agent session on its machine, a runner's key). The hub keeps its
 * sha256; the first key presented for a session is registered, and a take without it is refused.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Taker } from '../../shared/protocol/messages.js';
import { getTaker, handOverTaker, noteTakerProcess, registerTaker } from '../store/message-takers.js';
import type { Sql } from '../store/sql.js';

export type TakerProof = { ok: true; process: string } | { ok: false; why: string };

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/**
 * Whether `taker` is the session's own: registers its key when the session has none yet (its first
 * process: the hook event or session-start that opened it), else compares. `note`: remember this
 * process as the session's latest proven taker (a runner socket; shown as who took what it acks).
 */
export async function proveTaker(sql: Sql, session: { namespace: string; sid: string }, taker: Taker | undefined, at: number, options: { note?: boolean } = {}): Promise<TakerProof> {
  if (!taker) return { ok: false, why: `no taker key: only session ${session.sid}'s own hook processes and runner take its messages (a hook bridge or SDK older than the hub sends none: update it)` };
  const keyHash = hashOf(taker.key);
  // read first: a registered session (nearly every event) costs one read, or none where the batch read it
  let stored = await getTaker(sql, session);
  if (!stored) {
    if (await registerTaker(sql, { ...session, keyHash, process: taker.process, at })) return { ok: true, process: taker.process };
    stored = await getTaker(sql, session);
  }
  if (!stored || !sameHash(stored.keyHash, keyHash)) {
    return { ok: false, why: `not this session's taker: session ${session.sid}'s messages are taken only by its own hook processes and runner (the key its first process registered); they stay queued` };
  }
  if (options.note && stored.process !== taker.process) await noteTakerProcess(sql, { ...session, keyHash, process: taker.process });
  return { ok: true, process: taker.process };
}

/** The process a runner's ack is recorded as: the session's latest proven taker. */
export async function runnerTakerOf(sql: Sql, session: { namespace: string; sid: string }): Promise<string | null> {
  return (await getTaker(sql, session))?.process ?? null;
}

/**
 * A continue a person asked for: the session's messages go, from now on, to the agent the hub is
 * about to start for it, whoever took them before (a terminal's hooks, a runner process since
 * restarted with another key). The hub makes a new key, keeps its hash as the session's taker, and
 * sends the key only to the machine it asks to run the agent (in `machine-spawn`'s resume): no
 * other token ever sees it, so no other runner can take the session's messages.
 */
export async function handTakerToContinue(sql: Sql, session: { namespace: string; sid: string }, process: string, at: number): Promise<string> {
  const key = randomBytes(24).toString('base64url');
  await handOverTaker(sql, { ...session, keyHash: hashOf(key), process: process.slice(0, 128), at });
  return key;
}
