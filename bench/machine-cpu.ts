/**
 * CPU time from Linux's /proc, for the benches' CPU split: where the machine's cores went over a
 * measured window (the hub, PostgreSQL, the delay proxy, the bench's clients). NaN where /proc is
 * not there.
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process (or of one of its threads: the main thread's id is the pid), in seconds. */
export function processCpuSeconds(pid: number | undefined, thread?: number): number {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** The CPU seconds of every process named `command` on this machine (e.g. PostgreSQL's server processes, if local). */
export function commandCpuSeconds(command: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return Number.NaN;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== command) continue;
      total += processCpuSeconds(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The machine's busy and total CPU seconds since boot, all cores together (/proc/stat). */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number) as number[];
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return { busy: busy / CLOCK_TICKS_PER_SECOND, total: (busy + idle! + iowait!) / CLOCK_TICKS_PER_SECOND };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}
