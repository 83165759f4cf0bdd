/**
 * Whether a path lies under one of a machine's roots, read as text: the hub's early answer, so a
 * person learns `path_outside_roots` before anything is sent. The runner checks again after resolving
 * symlinks on its computer, which is the check that counts.
 */
function trimmed(path: string): string {
  return path.length > 1 ? path.replace(/[\\/]+$/, '') : path;
}

export function isUnderRoot(path: string, root: string): boolean {
  const [p, r] = [trimmed(path), trimmed(root)];
  if (p === r) return true;
  const separator = r.includes('\\') ? '\\' : '/';
  // `..` in a path could climb out of a root while its text stays under it
  if (p.split(/[\\/]/).includes('..')) return false;
  return p.startsWith(r.endsWith(separator) ? r : r + separator);
}

export function isUnderRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isUnderRoot(path, root));
}
