import { z } from 'zod';
import { RoleSchema } from './auth.js';
import { EpochMsSchema } from './session.js';

/** A stored token's public id: names it in `token list`, `token revoke` and `/api/tokens` (never the secret). */
export const TokenIdSchema = z.string().regex(/^[0-9a-f]{12}$/, 'must be a token id: 12 hexadecimal digits (see token list)');

const DURATION = /^([1-9][0-9]{0,5})([smhd])$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30d`, `12h`, `45m`, `90s`: how long a new token stays valid. */
export const ExpiresInSchema = z.string().regex(DURATION, 'must be a number and a unit, e.g. 30d, 12h, 45m or 90s');

/** The milliseconds an `ExpiresInSchema` string stands for (undefined when it is not one). */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text);
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
}

/** A person's name for a token (`token create --label "ci runner"`): shown where its id would be. */
export const TokenLabelSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'must be plain text on one line (no control characters)');

/** What is shown of a stored token: everything but the secret (the hub keeps only its hash). */
export const TokenInfoSchema = z.object({
  id: TokenIdSchema,
  /** The label it was created with; null: none. */
  label: z.string().nullable(),
  role: RoleSchema,
  namespace: z.string(),
  /** `generated` on a first start, `cli` by `session-hub token create`, `api` by `POST /api/tokens`, `sign-in-link` by the start-up link. */
  origin: z.string(),
  createdAt: EpochMsSchema,
  /** Updated every few seconds by the hub processes that saw the token (null: never used). */
  lastUsedAt: EpochMsSchema.nullable(),
  expiresAt: EpochMsSchema.nullable(),
  revokedAt: EpochMsSchema.nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfoSchema>;

export const ListTokensResponseSchema = z.object({ tokens: z.array(TokenInfoSchema) });
export const CreateTokenRequestSchema = z.object({ role: RoleSchema, expiresIn: ExpiresInSchema.optional(), label: TokenLabelSchema.optional() });
/** The secret appears in this answer only. */
export const CreateTokenResponseSchema = TokenInfoSchema.extend({ token: z.string() });
export const TokenIdParamsSchema = z.object({ id: TokenIdSchema });
