import { getFlavor, PAIRED_KEYS } from '../../shared/flavors.js';
import { requireSession } from './require-session.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import type { RepairResponse } from '../../shared/protocol/http.js';
import { listHistory } from '../store/history.js';
import { runWrite } from './changes.js';
import type { Actor, HubDeps } from './deps.js';
import { commitMetadataVersion } from './metadata-writes.js';

/** Keys that travel with a restored key: the paired keys of a token (cursorSessionId → cursorSessionProtocol). */
function companionsOf(key: string): string[] {
  return [...PAIRED_KEYS].filter(([, token]) => token === key).map(([paired]) => paired);
}

/**
 * What repair would restore: for each key absent now, its most recent value in the history, and a
 * restored token's paired keys from that same version.
 */
export function planRepair(current: JsonObject, history: readonly { metadata: JsonObject }[], keys: readonly string[]): JsonObject {
  const restored: JsonObject = {};
  for (const key of keys) {
    // Already brought back as a token's companion: keep the value from the token's own version.
    if (key in restored || (current[key] !== undefined && current[key] !== null)) continue;
    const source = [...history].reverse().find((entry) => entry.metadata[key] !== undefined && entry.metadata[key] !== null);
    if (!source) continue;
    restored[key] = source.metadata[key]!;
    for (const companion of companionsOf(key)) {
      if (current[companion] === undefined && source.metadata[companion] !== undefined && source.metadata[companion] !== null) {
        restored[companion] = source.metadata[companion]!;
      }
    }
  }
  return restored;
}

/** The keys repair looks at by default: the flavor's resume token. */
export function defaultRepairKeys(flavor: string): string[] {
  const declaration = getFlavor(flavor);
  return declaration ? [declaration.resumeTokenKey] : [];
}

/** `POST /api/sessions/:sid/repair`: restores absent keys from history as one new version by `user`. */
export function repairSession(deps: HubDeps, actor: Actor, sid: string, keys?: readonly string[], options: { dryRun?: boolean } = {}): Promise<RepairResponse> {
  return runWrite(deps, async (tx, changes, now) => {
    const session = await requireSession(tx, actor, sid);
    const restored = planRepair(session.metadata, await listHistory(tx, sid), keys ?? defaultRepairKeys(session.flavor));
    if (Object.keys(restored).length === 0 || options.dryRun) return { restored, version: session.metadataVersion };
    const document = { ...session.metadata, ...restored };
    const version = await commitMetadataVersion(tx, changes, { session, outcome: { document, carried: [], cleared: [], dropped: [] }, by: actor.by, now });
    return { restored, version };
  }, { namespace: actor.namespace });
}
