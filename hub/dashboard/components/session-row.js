// @ts-check
/** One session in the list: title, project, agent, activity, last prompt, last activity; a tap anywhere on it opens it. */
import { html } from '../html.js';
import { displayPath, flavorName, lastPathPart, projectPath, truncate } from '../format.js';
import { sayAttention } from '../attention.js';
import { sayCost } from '../usage.js';
import { ActivityBadge } from './activity-badge.js';
import { RelTime } from './rel-time.js';
import { lastActivityOf } from '../sessions.js';
import { openUnlessControl } from './needs-you.js';

const PROMPT_CHARS = 120;
/** As the hub cuts a title made from a prompt (hub/services/session-view.ts). */
const TITLE_CHARS = 200;

/**
 * @param {{ session: import('../sessions.js').SessionSnapshot, hub: import('../format.js').HubHost | null, now: number }} props
 */
export function SessionRow({ session: s, hub, now }) {
  const project = projectPath(s.metadata.value);
  // the open turn's prompt, else the last one (the hub sends it cut to 200 characters); not when the
  // title already says it (a session named by its first prompt, still on it)
  const last = s.currentTurn?.prompt ?? s.lastPrompt ?? '';
  const prompt = truncate(last, TITLE_CHARS) === s.title ? '' : last;
  const href = `#/s/${encodeURIComponent(s.sid)}`;
  return html`<li class="session" data-sid=${s.sid} data-activity=${s.activity} data-state=${s.lifecycle.state}
    onClick=${(/** @type {MouseEvent} */ e) => openUnlessControl(e, s.sid)}>
    <div class="session-top">
      <a class="title" href=${href} title=${s.title}>${s.title}</a>
      <${ActivityBadge} activity=${s.activity} />
    </div>
    ${s.attention && html`<p class=${`attention-line attention-${s.attention.kind}`} data-kind=${s.attention.kind}>${sayAttention(s.attention)}</p>`}
    <div class="session-meta">
      ${project && html`<span class="project" title=${displayPath(project, s.metadata.value, hub)}>${lastPathPart(project)}</span>`}
      <span class="agent">${flavorName(s.flavor)}</span>
      <${RelTime} at=${lastActivityOf(s)} now=${now} />
      ${sayCost(s.usage) && html`<span class="cost" title="what this session's tokens cost">${sayCost(s.usage)}</span>`}
    </div>
    ${prompt && html`<p class="prompt" title=${truncate(prompt, 500)}>${truncate(prompt, PROMPT_CHARS)}</p>`}
  </li>`;
}
