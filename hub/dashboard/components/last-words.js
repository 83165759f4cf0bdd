// @ts-check
/**
 * What the agent last said (its latest turn's closing message), near the top of a session's page:
 * on a phone it is what a person checks first, and the timeline below holds it several screens down.
 */
import { html } from '../html.js';
import { ClampedText } from './clamped-text.js';
import { RelTime } from './rel-time.js';

/** Past this many characters the words fold ("show all"). */
const LAST_WORDS_CHARS = 600;

/**
 * @param {{ turns: import('../../../shared/protocol/session.js').TurnWithActivity[] | null, now: number }} props
 */
export function LastWords({ turns, now }) {
  // turns come oldest first: the newest one that closed with words
  const last = [...(turns ?? [])].reverse().find((turn) => typeof turn.response === 'string' && turn.response.trim() !== '');
  if (!last || last.response == null) return null;
  return html`<section class="last-words" id="last-words">
    <h3>The agent last said<${RelTime} at=${last.closedAt ?? last.openedAt} now=${now} /></h3>
    <${ClampedText} tag="pre" class="text" text=${last.response} max=${LAST_WORDS_CHARS} />
  </section>`;
}
