import { z } from 'zod';
import { SeqSchema } from './session.js';

export const RoleSchema = z.enum(['runner', 'dashboard', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

export const HandshakeAuthSchema = z.object({
  // trimmed as HTTP's Bearer token is: a pasted token with a space or newline around it still works
  token: z.string().trim().min(1),
  lastSeq: SeqSchema.optional(),
});
export type HandshakeAuth = z.infer<typeof HandshakeAuthSchema>;

/** `connect_error` messages for a refused handshake. */
export const HANDSHAKE_ERRORS = { unauthorized: 'unauthorized', forbidden: 'forbidden' } as const;
