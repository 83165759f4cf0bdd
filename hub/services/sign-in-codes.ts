import { randomBytes } from 'node:crypto';

/** How long the start-up link's code can be used. */
export const SIGN_IN_CODE_TTL_MS = 10 * 60_000;

/**
 * One-time codes for the start-up sign-in link (`/?code=…`): random, kept in this process's memory
 * only (the link names this process's URL), good once and for SIGN_IN_CODE_TTL_MS. The code stands
 * for no token itself: the exchange (POST /api/sign-in/code) makes or hands over one, so what the
 * browser's history records is a spent code, never a secret.
 */
export class SignInCodes {
  private readonly codes = new Map<string, number>();

  constructor(private readonly ttlMs = SIGN_IN_CODE_TTL_MS) {}

  issue(now: number): { code: string; expiresAt: number } {
    this.forgetExpired(now);
    const code = randomBytes(18).toString('base64url');
    const expiresAt = now + this.ttlMs;
    this.codes.set(code, expiresAt);
    return { code, expiresAt };
  }

  /** True once for a code issued here and not expired; the code is spent either way. */
  take(code: string, now: number): boolean {
    const expiresAt = this.codes.get(code);
    this.codes.delete(code);
    this.forgetExpired(now);
    return expiresAt !== undefined && now < expiresAt;
  }

  private forgetExpired(now: number): void {
    for (const [code, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(code);
  }
}
