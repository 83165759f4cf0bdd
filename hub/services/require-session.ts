import { hubError } from '../../shared/errors.js';
import { getSession, type StoredSession } from '../store/sessions.js';
import type { Actor, HubDeps } from './deps.js';

/** The actor's session, or `not_found` — another namespace's session is exactly as absent as a missing one. */
export function requireSession(deps: Pick<HubDeps, 'db'>, actor: Pick<Actor, 'namespace'>, sid: string): StoredSession {
  const session = getSession(deps.db, { namespace: actor.namespace, sid });
  if (!session) throw hubError.notFound(sid);
  return session;
}
