/**
 * A hook event's id: unique across every hook process of every agent, so the hub applies it once
 * (docs/hooks.md, "Exactly once"). Not crypto.randomUUID(): loading node:crypto costs each hook call
 * a few ms of its start-up (docs/hooks.md, "Wall time"), and the id needs uniqueness, not secrecy.
 * Math.random is seeded per process from the OS's entropy; 104 random bits beside the firing time
 * and the pid make two equal ids out of reach.
 */
const randomBase36 = () => Math.floor(Math.random() * 2 ** 52).toString(36).padStart(11, '0');

export function newEventId(firedAt: number, pid = process.pid): string {
  return `${firedAt.toString(36)}-${pid.toString(36)}-${randomBase36()}${randomBase36()}`;
}
