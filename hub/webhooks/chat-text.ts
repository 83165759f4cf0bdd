/**
 * A line of session text made safe for a chat channel (Slack, Mattermost, Discord's Slack-compatible
 * endpoint), so that a session's title, prompt or answer is shown, never obeyed:
 * - `&`, `<`, `>` become `&amp;`, `&lt;`, `&gt;` (Slack's escaping, which Mattermost follows):
 *   `<!channel>` is no channel-wide mention and `<https://…|label>` no disguised link;
 * - a zero-width space follows every `@`: `@everyone`, `@here`, `@channel`, `@all` and `@name` ping
 *   nobody on Discord or Mattermost, and read the same.
 */
export function chatSafe(text: string): string {
  return text.replace(/[&<>@]/g, (char) => CHAT_SAFE[char]!);
}

const CHAT_SAFE: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '@': '@\u200b' };
