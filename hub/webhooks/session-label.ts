import { getFlavor } from '../../shared/flavors.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { SessionLabel } from './event-kinds.js';

/** The last part of a path, Windows or POSIX, ignoring trailing separators. */
function lastPathPart(path: string): string {
  return path.split(/[\\/]+/).filter((part) => part !== '').pop() ?? '';
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/**
 * A session's name for people: its metadata `title`, else its tag, else the last part of its
 * working directory (metadata `path`), else its sid; and its agent's display name from the registry.
 */
export function labelOf(session: { sid: string; tag: string; flavor: string; metadata: JsonObject } | undefined, sid: string): SessionLabel {
  if (!session) return { name: sid, agent: 'Agent' };
  const path = text(session.metadata.path);
  const name = text(session.metadata.title) ?? text(session.tag) ?? (path === undefined ? undefined : lastPathPart(path) || path) ?? sid;
  return { name, agent: getFlavor(session.flavor)?.displayName ?? session.flavor };
}
