import { z } from 'zod';

export const RoleSchema = z.enum(['runner', 'dashboard', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

export const HandshakeAuthSchema = z.object({
  token: z.string().min(1),
  lastSeq: z.number().int().nonnegative().optional(),
});
export type HandshakeAuth = z.infer<typeof HandshakeAuthSchema>;

/** `connect_error` messages for a refused handshake. */
export const HANDSHAKE_ERRORS = { unauthorized: 'unauthorized', forbidden: 'forbidden' } as const;
