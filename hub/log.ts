import pino from 'pino';

export type Logger = pino.Logger;

/** A `token=` query parameter (the dashboard page accepts `/?token=`) never reaches a log. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

/**
 * A server URL (database, Redis) for messages and logs: its password replaced, also one given as a
 * query parameter (`?password=`, `?sslpassword=`: pg reads those as connection settings).
 */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of [...parsed.searchParams.keys()]) {
      if (/password/i.test(name)) parsed.searchParams.set(name, '***');
    }
    return parsed.toString();
  } catch {
    return 'the configured URL (unparsable)';
  }
}

/** What a request log line shows: never headers (Authorization) or a query token. */
function serializeRequest(req: { method?: string; url?: string; ip?: string }) {
  return { method: req.method, url: req.url === undefined ? undefined : redactUrl(req.url), remoteAddress: req.ip };
}

/**
 * The one pino root. Tokens never reach a log: the handshake's `auth`, the Authorization header and
 * a `token=` query parameter are redacted wherever they appear.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'session-hub' },
      serializers: { req: serializeRequest },
      redact: { paths: ['token', '*.token', 'auth', '*.auth', 'req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}
