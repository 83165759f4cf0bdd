/**
 * A spooled event as POST /api/hooks takes it: without the bridge's own `tag`, and with its age by
 * this machine's clock when it is sent (`ageMs`), so the hub places it on its own clock whatever the
 * skew between the agent's machine and the hub's (a laptop minutes off would otherwise make a
 * spooled PermissionRequest look late, or a late one fresh).
 */
import type { HookEvent } from '../../shared/protocol/hooks.js';
import type { SpooledEvent } from './spool.js';

export function wireEvent({ tag: _tag, ...event }: SpooledEvent, now = Date.now()): HookEvent {
  return { ...event, ageMs: Math.max(0, now - event.firedAt) };
}
