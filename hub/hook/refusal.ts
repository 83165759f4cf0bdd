/** What a refused hook token means and how to fix it, said the same on stderr, to the agent's user, and by `hook status` / `doctor`. */
export function refusalAdvice(status: number, hubMessage: string): string {
  if (status === 401) {
    return `the hub does not know SESSION_HUB_TOKEN (unknown or revoked: ${hubMessage}); an agent token is needed: \`session-hub token create --role agent\`, kept by \`session-hub login <url>\` or exported as SESSION_HUB_TOKEN where the agent starts`;
  }
  return `the hub refused SESSION_HUB_TOKEN (${hubMessage}); an agent token is needed: \`session-hub token create --role agent\``;
}
