// @ts-check
/** The facts about one session, each code said in words with the code in its tooltip. */
import { html } from '../html.js';
import { absoluteTime, displayPath, flavorName, metaString, projectPath } from '../format.js';
import { WRITER, say, sayLastRun, sayLifecycle, sayResume } from '../words.js';
import { RelTime } from './rel-time.js';
import { lastActivityOf } from '../sessions.js';
import { Word } from './word.js';

/**
 * @param {{ session: import('../sessions.js').SessionSnapshot, hub: import('../format.js').HubHost | null, now: number }} props
 */
export function SessionFacts({ session: s, hub, now }) {
  const path = metaString(s.metadata.value, 'path');
  const project = projectPath(s.metadata.value);
  const by = say(WRITER, s.lifecycle.by);
  /** @type {[string, string, any][]} */
  const rows = [
    ['Agent', 'agent', flavorName(s.flavor)],
    ['Project', 'project', project ? html`<span class="path" title=${project}>${displayPath(project, s.metadata.value, hub)}</span>` : '—'],
    ...(/** @type {[string, string, any][]} */ (path && path !== project ? [['Folder', 'path', html`<span class="path" title=${path}>${displayPath(path, s.metadata.value, hub)}</span>`]] : [])),
    ['State', 'state', html`<span class="state" data-state=${s.lifecycle.state}><${Word} said=${sayLifecycle(s.lifecycle)} /></span>`],
    ['Since', 'since', html`${absoluteTime(s.lifecycle.since)}${by.text ? html` by <${Word} said=${by} />` : ''}`],
    ['Last run', 'last-run', html`<${Word} said=${sayLastRun(s.lifecycle.lastRun)} />`],
    ['Resume', 'resume', html`<${Word} said=${sayResume(s.resume)} />`],
    ['Parent', 'parent', s.parentSid ? html`<a href=${`#/s/${encodeURIComponent(s.parentSid)}`}>the session this one continues</a>` : '—'],
    ['Created', 'created', absoluteTime(s.createdAt)],
    ['Last activity', 'updated', html`<${RelTime} at=${lastActivityOf(s)} now=${now} />`],
  ];
  return html`<dl class="facts">
    ${rows.map(([term, key, value]) => html`<dt>${term}</dt><dd data-fact=${key}>${value}</dd>`)}
  </dl>`;
}
