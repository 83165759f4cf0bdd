import pino from 'pino';

export type Logger = pino.Logger;

/**
 * The one pino root. Tokens never reach a log: the handshake's `auth` and the Authorization header
 * are redacted wherever they appear.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'session-hub' },
      redact: { paths: ['token', '*.token', 'auth', '*.auth', 'req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}
