import { hubError } from '../../shared/errors.js';
import { getSession, type StoredSession } from '../store/sessions.js';
import type { Sql } from '../store/sql.js';
import type { Actor } from './deps.js';

/** The actor's session, or `not_found` — another namespace's session is exactly as absent as a missing one. */
export async function requireSession(sql: Sql, actor: Pick<Actor, 'namespace'>, sid: string): Promise<StoredSession> {
  const session = await getSession(sql, { namespace: actor.namespace, sid });
  if (!session) throw hubError.notFound(sid);
  return session;
}
