// @ts-check
/**
 * An agent CLI's version as a person reads it beside the agent's name: the version number out of
 * what `<cli> --version` printed ("2.1.197 (Claude Code)" → "2.1.197", "codex-cli 0.169.0" →
 * "0.169.0"), or the whole line when it holds no number. Import-free, so tests load it as is.
 * @param {string} printed
 */
export function versionNumber(printed) {
  return /\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?/.exec(printed)?.[0] ?? printed;
}
