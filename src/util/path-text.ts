/**
 * A zod-style path (`['data', 3, 'rank']`) as `data[3].rank`: the one spelling of a place in a
 * document for the API client's schema errors and the config's problems. `root` names the empty path.
 */
export function pathText(path: readonly PropertyKey[], root: string): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? root : out;
}
