/**
 * `session-hub hook retry-refused`: once the token is fixed, puts back in the spool of the hub and
 * token set now (SESSION_HUB_URL, SESSION_HUB_TOKEN) the events that were refused for their token
 * (401/403) by that same hub, and the events written with no hub set or by an earlier version (no
 * hub recorded), then sends that spool. Events another token of the hub still holds, events for
 * another hub, and events the hub could not read (re-sending changes nothing) stay where they are.
 * A person runs it: that is the consent to send those events with this token. Each event is first
 * appended to its new spool, then removed from where it was: a crash between repeats it, and the
 * hub applies it once (by id).
 */
import { deliverSpool, type DeliveryReport } from './deliver.js';
import { hubOrigin, readTargetFile, targetDir, targetDirs, targetKey, type HubTarget } from './spool-target.js';
import { Spool, spooledFlavors, type SpooledEvent } from './spool.js';

const LOCK_WAIT_MS = 10_000;
/** A refusal of the token itself (the reason starts with the status the hub answered). */
const TOKEN_REFUSAL = /^40[13]\b/;

export interface RetryReport {
  /** Events put back, per source directory and flavor. */
  moved: { from: string; flavor: string; refused: number; waiting: number }[];
  /** Events left where they were, and why. */
  left: string[];
  /** The delivery that followed, per flavor. */
  delivered: { flavor: string; report: DeliveryReport }[];
}

async function holding<T>(spool: Spool, fn: () => T | Promise<T>): Promise<T> {
  const done = await spool.locked(LOCK_WAIT_MS, fn);
  if (done === null) throw new Error(`the spool ${spool.dir} stayed locked for ${LOCK_WAIT_MS / 1000} s; try again`);
  return done.value;
}

export async function retryRefused(spoolDir: string, target: HubTarget): Promise<RetryReport> {
  const origin = hubOrigin(target.url);
  const destDir = targetDir(spoolDir, target);
  const report: RetryReport = { moved: [], left: [], delivered: [] };
  const touched = new Set<string>();
  for (const dir of targetDirs(spoolDir)) {
    const hub = readTargetFile(dir)?.url;
    for (const flavor of spooledFlavors(dir)) {
      const source = new Spool(dir, flavor);
      const rejected = source.rejected();
      if (hub !== undefined && hub !== origin) {
        if (rejected.length > 0) report.left.push(`${rejected.length} refused ${flavor} event(s) for another hub (${hub}) in ${source.rejectedFile}`);
        continue;
      }
      const refused = rejected.filter((r) => TOKEN_REFUSAL.test(r.reason)).map((r) => r.event);
      const unreadable = rejected.length - refused.length;
      if (unreadable > 0) report.left.push(`${unreadable} ${flavor} event(s) the hub could not read (re-sending changes nothing) in ${source.rejectedFile}`);
      // only a spool that named no hub is taken whole: another token's spool is that token's
      const waiting = hub === undefined && dir !== destDir ? await holding(source, () => source.read()) : [];
      if (refused.length === 0 && waiting.length === 0) continue;
      const dest = new Spool(destDir, flavor, { url: origin, key: targetKey(target) });
      const strip = ({ seq: _seq, ...event }: SpooledEvent) => event;
      await holding(dest, () => dest.append(...[...refused, ...waiting].map(strip)));
      await holding(source, () => {
        source.dropRejected(new Set(refused.map((e) => e.id)));
        source.remove(new Set(waiting.map((e) => e.id)));
      });
      report.moved.push({ from: dir, flavor, refused: refused.length, waiting: waiting.length });
      touched.add(flavor);
    }
  }
  for (const flavor of touched) {
    const dest = new Spool(destDir, flavor);
    report.delivered.push({ flavor, report: await holding(dest, () => deliverSpool(dest, target, Date.now() + LOCK_WAIT_MS)) });
  }
  return report;
}
