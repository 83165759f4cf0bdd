import { z } from 'zod';
import { SeqSchema } from './session.js';

export const RoleSchema = z.enum(['runner', 'dashboard', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

export const HandshakeAuthSchema = z.object({
  token: z.string().min(1),
  lastSeq: SeqSchema.optional(),
});
export type HandshakeAuth = z.infer<typeof HandshakeAuthSchema>;

/** `connect_error` messages for a refused handshake. */
export const HANDSHAKE_ERRORS = { unauthorized: 'unauthorized', forbidden: 'forbidden' } as const;
