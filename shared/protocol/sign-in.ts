import { z } from 'zod';
import { RoleSchema } from './auth.js';
import { EpochMsSchema } from './session.js';

/**
 * `POST /api/sign-in/code`: the start-up link's one-time code exchanged for a token in a POST body,
 * so no secret is ever part of a URL the browser navigates to (docs/security.md).
 */
export const SignInCodeRequestSchema = z.object({ code: z.string().min(1, 'must be the code of a sign-in link').max(200, 'is too long for a sign-in code') });
export const SignInCodeResponseSchema = z.object({
  token: z.string(),
  role: RoleSchema,
  namespace: z.string(),
  /** The token's expiry (null: never; tokens given by SESSION_HUB_TOKENS do not expire). */
  expiresAt: EpochMsSchema.nullable(),
});
export type SignInCodeResponse = z.infer<typeof SignInCodeResponseSchema>;
