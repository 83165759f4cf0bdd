/** The runner's log: one JSON line per event on stdout (journald keeps it under the systemd unit). */
export type LogFields = Record<string, unknown>;

export interface RunnerLog {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function jsonLog(write: (line: string) => void = (line) => process.stdout.write(line)): RunnerLog {
  const at = (level: string) => (msg: string, fields: LogFields = {}) => write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
