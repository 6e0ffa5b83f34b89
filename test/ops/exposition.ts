/** Reads Prometheus text exposition back into samples, so tests assert on names, labels and values. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice('# TYPE '.length).split(' ');
      if (name !== undefined && type !== undefined) types.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      if (key !== undefined && value !== undefined) labels[key] = value.replace(/\\(.)/g, '$1');
    }
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return { samples, types };
}

/** The samples of one name, each as its labels plus value, for `toEqual` on the whole family. */
export function family(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return parseExposition(text)
    .samples.filter((s) => s.name === name)
    .map(({ labels, value }) => ({ labels, value }));
}

/** The single value of `name` with exactly these labels; undefined when absent. */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return parseExposition(text).samples.find(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted,
  )?.value;
}
