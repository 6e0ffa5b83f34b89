/** Edit distance (insertions, deletions, substitutions), case-insensitive: "webhookURL" ≈ "webhookUrl". */
function distance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[right.length] ?? Math.max(left.length, right.length);
}

/**
 * Other names people use for a known word, which no edit distance finds: ISO 3166 says GB where
 * the API says UK.
 */
const WELL_KNOWN_NAMES: Readonly<Record<string, string>> = { GB: 'UK', USA: 'US', JA: 'JP' };

/**
 * The known word closest to a mistyped one, if it is close enough to be a plausible typo
 * (at most a third of the word changed, and at most 3 edits) or another name for it, else undefined.
 */
export function suggest(word: string, known: readonly string[]): string | undefined {
  const alias = WELL_KNOWN_NAMES[word.trim().toUpperCase()];
  if (alias !== undefined && known.includes(alias)) return alias;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = distance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(word.length, 1) / 3)));
  return bestDistance <= allowed ? best : undefined;
}
