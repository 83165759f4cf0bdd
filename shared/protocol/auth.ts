import { z } from 'zod';
import { SeqSchema } from './session.js';

/**
 * `operator`: everything `dashboard` may, plus deciding tool approvals (docs/attention.md).
 * `agent`: the hook bridge's token, which every agent's own tools can read: it reports hook events
 * and takes messages, nothing more (docs/security.md).
 * `machine`: everything `runner` may, plus registering a machine (docs/machines.md).
 */
export const RoleSchema = z.enum(['agent', 'runner', 'machine', 'dashboard', 'operator', 'admin']);
export type Role = z.infer<typeof RoleSchema>;
/** "runner, dashboard, operator or admin", for error messages. */
export const ROLE_NAMES = `${RoleSchema.options.slice(0, -1).join(', ')} or ${RoleSchema.options.at(-1)}`;

export const HandshakeAuthSchema = z.object({
  // trimmed as HTTP's Bearer token is: a pasted token with a space or newline around it still works
  token: z.string().trim().min(1),
  lastSeq: SeqSchema.optional(),
});
export type HandshakeAuth = z.infer<typeof HandshakeAuthSchema>;

/** `connect_error` messages for a refused handshake. */
export const HANDSHAKE_ERRORS = { unauthorized: 'unauthorized', forbidden: 'forbidden' } as const;

/** Roles that may watch on `/dashboard` only: refused on `/runner`. */
export const WATCH_ONLY_ROLES: readonly Role[] = ['dashboard', 'operator'];
/** Roles that may report hook events and take messages over HTTP (`POST /api/hooks`, `/api/hooks/wait`). */
export const HOOK_ROLES: readonly Role[] = ['agent', 'runner', 'machine', 'admin'];
/** Roles that may read sessions (HTTP reads, `/dashboard`, `/runner`): every role but `agent`. */
export const READING_ROLES: readonly Role[] = RoleSchema.options.filter((role) => role !== 'agent');
/** Roles that may read a session's working tree and files (spec section 15): not `agent`, nor `machine` (a runner's own token). */
export const WORK_READING_ROLES: readonly Role[] = READING_ROLES.filter((role) => role !== 'machine');
/** Roles a person signs in to the page with. */
export const PEOPLE_ROLES: readonly Role[] = ['dashboard', 'operator', 'admin'];
/** Roles that may decide a tool approval. */
export const DECIDING_ROLES: readonly Role[] = ['operator', 'admin'];
/** Roles that may register a machine on `/runner` (spec section 14): not `runner`, whose token every agent's hooks hold. */
export const MACHINE_ROLES: readonly Role[] = ['machine'];
/** Roles that may report sessions (`/runner` events, hooks, resume): what a runner may, a machine may too. */
export const REPORTING_ROLES: readonly Role[] = ['runner', 'machine', 'admin'];
