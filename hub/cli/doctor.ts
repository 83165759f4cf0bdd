import { parseArgs } from 'node:util';
import { defaultSpoolDir } from '../hook/spool.js';
import { formatSpoolStatus, needsAttention, spoolStatus, type SpoolReport } from '../hook/status.js';
import { diagnose, DEFAULT_SILENT_RUN_MS, type DoctorReport } from '../services/doctor.js';
import { countSessions } from '../store/doctor.js';
import { listHookRefusals, type HookRefusal } from '../store/hook-refusals.js';
import { RECENT_REFUSALS_MS } from '../http/hook-refusals.js';
import { age, openExistingStore, withUsageErrors } from './offline.js';

export const DOCTOR_HELP = `session-hub doctor [--data DIR] [--json]

Reads the hub database directly (safe while the hub runs) and lists what needs attention:
  - ended or archived sessions whose resume token is missing although their history has one
    (fix: session-hub repair),
  - runs still marked running whose runner is gone past the grace, or with no activity for 24 h,
  - turns the sweep should have timed out (no activity past the turn timeout, or the tool timeout
    while a tool runs),
  - hook events lost on the way (last 7 days): turns closed as "timeout" whose Stop never came,
    and hook sessions the hub ended after silence because their SessionEnd never came,
  - webhooks paused after failing too long (fix: session-hub webhook resume <id>), failing now,
    or that lost events pruned by retention before they could be delivered.
  - hook deliveries the hub refused in the last 24 h (wrong, revoked or missing token), per token
    (its hash's first 12 hex digits) and address.
  - hook events this machine's hook bridge could not deliver now: refused by the hub (wrong token),
    not configured, damaged spool files, a spool that cannot be written, hook calls that sent
    nothing (unknown flavor, no session id); read from SESSION_HUB_SPOOL_DIR (default ~/.session-hub) of the user
    running doctor (set it to the agent user's spool dir when the agent runs as someone else).

Options:
  --data <dir>   the hub's data directory (SESSION_HUB_DATA, default ./data); with
                 SESSION_HUB_DATABASE_URL set, that PostgreSQL database instead
  --json         print the report as JSON (for scripts)
  -h, --help     show this help

Exit code: 0 when nothing was found, 1 when problems were found, 2 on a usage error.
Thresholds follow the hub's settings: SESSION_HUB_RUN_GRACE_MS, SESSION_HUB_TURN_TIMEOUT_MS,
SESSION_HUB_TOOL_TIMEOUT_MS.`;

const days = (ms: number): string => `${Math.round(ms / 86_400_000)} days`;

function when(at: number, now: number): string {
  return `${new Date(at).toISOString()} (${age(now - at)} ago)`;
}

function formatReport(report: DoctorReport, dataArg: string, sessions: number, databaseFile: string, hooks: SpoolReport, refusals: HookRefusal[]): string {
  const now = report.checkedAt;
  const lines = [`session-hub doctor: ${databaseFile}, ${sessions} session(s)`, ''];
  const data = `--data ${dataArg}`;
  if (report.missingTokens.length > 0) {
    lines.push(`Missing resume tokens (${report.missingTokens.length}): ended or archived sessions whose token is gone but is in their history`);
    for (const f of report.missingTokens) {
      const why = f.reason ? ` ("${f.reason}")` : '';
      lines.push(`  ${f.sid}  ${f.flavor}  ${f.state}${why}  ${f.tokenKey} last present in version ${f.lastVersionWithToken} (now version ${f.version})`);
    }
    lines.push(`  fix one:  session-hub repair --sid <sid> ${data}`);
    lines.push(`  fix all:  session-hub repair --all ${data}   (add --dry-run first to see what it would restore)`, '');
  }
  if (report.stuckRuns.length > 0) {
    lines.push(`Runs stuck as running (${report.stuckRuns.length}): no runner past the grace of ${age(report.thresholds.runGraceMs)}, or no activity for ${age(report.thresholds.silentRunMs)}`);
    for (const f of report.stuckRuns) {
      const gone = f.disconnectedAt === null ? 'runner attached or hub stopped' : `runner gone since ${when(f.disconnectedAt, now)}`;
      lines.push(`  ${f.sid}  ${f.flavor}  run ${f.runId}  started ${when(f.startedAt, now)}; ${gone}; last activity ${age(now - f.lastActivityAt)} ago`);
    }
    lines.push('  fix: make sure the hub is running; its sweep ends runs whose runner is gone past the grace as "interrupted".');
    lines.push('       A run with a runner attached but silent for a day: stop that runner, or archive the session', '');
  }
  if (report.openTurns.length > 0) {
    lines.push(`Turns open too long (${report.openTurns.length}): no activity for more than ${age(report.thresholds.turnTimeoutMs)} (${age(report.thresholds.toolTimeoutMs)} while a tool runs)`);
    for (const f of report.openTurns) lines.push(`  ${f.sid}  turn ${f.turnId}  opened ${when(f.openedAt, now)}; last activity ${when(f.lastActivityAt, now)}`);
    lines.push('  fix: make sure the hub is running; its sweep closes these as "timeout".', '');
  }
  const hookStatus = 'run `session-hub hook status` on the agent\'s machine: events it could not deliver are listed there and go out again once the hub takes them';
  if (report.lostStops.length > 0) {
    lines.push(`Turns whose Stop never reached the hub (${report.lostStops.length} in the last ${days(report.thresholds.lostEventsMs)}): closed as "timeout" after ${age(report.thresholds.turnTimeoutMs)} without activity; their answer and usage are missing`);
    for (const f of report.lostStops) {
      const prompt = f.prompt === null ? '' : `  "${f.prompt.replace(/\s+/g, ' ')}"`;
      lines.push(`  ${f.sid}  ${f.flavor}  agent session ${f.tag}  turn ${f.turnId}${prompt}  opened ${when(f.openedAt, now)}; timed out ${when(f.closedAt, now)}`);
    }
    lines.push(`  what to do: ${hookStatus}; a Stop that arrives late still lands on its turn.`);
    lines.push('       Nothing listed there: the agent ended before its Stop hook ran (killed, crashed, or a headless run that does not wait for async hooks: docs/hooks.md).', '');
  }
  if (report.unendedSessions.length > 0) {
    lines.push(`Sessions that never ended (${report.unendedSessions.length} in the last ${days(report.thresholds.lostEventsMs)}): no SessionEnd reached the hub; it ended them after a silence ("Lost contact" on the dashboard)`);
    for (const f of report.unendedSessions) {
      const last = f.lastEventAt === null ? '' : `last hook event fired ${when(f.lastEventAt, now)}; `;
      lines.push(`  ${f.sid}  ${f.flavor}  agent session ${f.tag}  ${last}ended by the hub ${when(f.endedAt, now)}`);
    }
    lines.push(`  what to do: ${hookStatus}. Nothing listed there: the agent exited without running its SessionEnd hook (killed, or a headless run: docs/hooks.md).`, '');
  }
  if (report.webhooks.length > 0) {
    lines.push(`Webhooks needing attention (${report.webhooks.length})`);
    for (const w of report.webhooks) {
      const state = w.pausedAt !== null ? `paused since ${when(w.pausedAt, now)} after ${w.failures} failed attempts` : w.failures > 0 ? `failing: ${w.failures} attempt(s) in a row since ${when(w.failingSince ?? now, now)}` : 'delivering';
      const lost = w.lostEvents > 0 ? `; ${w.lostEvents} event(s) lost to retention before delivery` : '';
      lines.push(`  ${w.id}  ${w.namespace}  ${w.url}  ${state}${lost}${w.lastError === null ? '' : `; last error: ${w.lastError}`}`);
    }
    lines.push(`  fix: make the receiver answer 2xx, then: session-hub webhook resume <id> ${data}   (also acknowledges lost events)`);
    lines.push('       lost events: raise SESSION_HUB_EVENT_KEEP / SESSION_HUB_EVENT_KEEP_MS, or resume paused webhooks sooner', '');
  }
  if (refusals.length > 0) {
    const total = refusals.reduce((sum, r) => sum + r.count, 0);
    lines.push(`Hook deliveries this hub refused (${total} in the last 24 h): a wrong, revoked or missing token where an agent runs`);
    for (const r of refusals) lines.push(`  token ${r.tokenId}  from ${r.address}  ${r.count}x  ${r.status}  last ${when(r.lastAt, now)}: ${r.message}`);
    lines.push('  fix: give those hooks an agent token (session-hub token create --role agent; session-hub login <url> on that machine)', '');
  }
  const hookProblems = needsAttention(hooks);
  if (hooks.flavors.length > 0 || hookProblems > 0) lines.push(...formatSpoolStatus(hooks), '');
  const problems = report.missingTokens.length + report.stuckRuns.length + report.openTurns.length + report.lostStops.length + report.unendedSessions.length + report.webhooks.length + hookProblems + refusals.length;
  lines.push(problems === 0 ? 'No problems found.' : `${problems} problem(s) found.`);
  return `${lines.join('\n')}\n`;
}

export function doctorCommand(argv: string[]): Promise<void> {
  return withUsageErrors('doctor', () => doctor(argv));
}

async function doctor(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { data: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(`${DOCTOR_HELP}\n`);
    return;
  }
  const { store, config, where } = await openExistingStore(values.data);
  try {
    const report = await diagnose(store, { now: Date.now(), runGraceMs: config.runGraceMs, turnTimeoutMs: config.turnTimeoutMs, toolTimeoutMs: config.toolTimeoutMs, silentRunMs: DEFAULT_SILENT_RUN_MS });
    // the hook bridge's spool on this machine: a misconfigured hook shows here too
    const hooks = spoolStatus(defaultSpoolDir(process.env));
    // refused by the hub itself (wrong token): recorded by the running hub, at most once a minute per token and address
    const refusals = await listHookRefusals(store, report.checkedAt - RECENT_REFUSALS_MS);
    const ok = report.ok && needsAttention(hooks) === 0 && refusals.length === 0;
    if (values.json) process.stdout.write(`${JSON.stringify({ database: where, ...report, ok, hookSpool: hooks, hookRefusals: refusals }, null, 2)}\n`);
    else process.stdout.write(formatReport(report, values.data ?? config.dataDir, await countSessions(store), where, hooks, refusals));
    process.exitCode = ok ? 0 : 1;
  } finally {
    await store.close();
  }
}
