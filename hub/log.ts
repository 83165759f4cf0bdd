import pino from 'pino';
import pretty from 'pino-pretty';

export type Logger = pino.Logger;

/**
 * What a log keeps of a request URL: its path, never its query string. A query may carry a secret
 * under any name and spelling (`?access_token=`, `?%74oken=`, `?api_key=`; the dashboard page takes
 * `/?token=`): dropping it whole is the one rule no spelling escapes.
 */
export function pathOnly(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : `${url.slice(0, query)}?[query not logged]`;
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

/** What a request log line shows: never headers (Authorization) or the query string. */
function serializeRequest(req: { method?: string; url?: string; ip?: string }) {
  return { method: req.method, url: req.url === undefined ? undefined : pathOnly(req.url), remoteAddress: req.ip };
}

/**
 * The one pino root. Tokens never reach a log: the handshake's `auth` and the Authorization header
 * are redacted wherever they appear, and request URLs are logged without their query string.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, options: { pretty?: boolean } = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'session-hub' },
      serializers: { req: serializeRequest },
      redact: { paths: ['token', '*.token', 'auth', '*.auth', 'req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination ?? (options.pretty ? readableLines() : undefined),
  );
}

/**
 * For a person at a terminal: `12:04:31 INFO  session hub listening on …` with the fields after it,
 * not JSON. Written synchronously to stdout, like pino's own destination, so nothing is lost at exit.
 */
function readableLines(): pino.DestinationStream {
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service', singleLine: true });
}
