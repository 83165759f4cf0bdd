/**
 * A token made by a sign-in link is labelled with the day and the device that used it ("sign-in
 * link, 5 Dec, Chrome on Android"), so "allowed by" on an approval names something a person
 * recognises, not a token's hash. Read from the User-Agent: a name, never trusted for anything else.
 */
const PLATFORMS: readonly [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/Mac OS X|Macintosh/, 'Mac'],
  [/Windows/, 'Windows'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];
const BROWSERS: readonly [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/Firefox\//, 'Firefox'],
  [/(Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];

const named = (table: readonly [RegExp, string][], text: string) => table.find(([pattern]) => pattern.test(text))?.[1];

export function signInLabel(userAgent: string | undefined, now: number): string {
  const day = new Date(now).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const ua = userAgent ?? '';
  const browser = named(BROWSERS, ua);
  const platform = named(PLATFORMS, ua);
  const device = browser && platform ? `${browser} on ${platform}` : (browser ?? platform ?? 'a browser');
  return `sign-in link, ${day}, ${device}`;
}
