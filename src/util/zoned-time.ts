/**
 * Wall-clock readings in an IANA time zone. Building an Intl.DateTimeFormat costs far more than
 * using one, so each reading keeps one formatter per zone, built on first use. An unknown zone
 * throws Intl's RangeError when its formatter is built (nothing is cached then).
 */

type ZoneFreeOptions = Omit<Intl.DateTimeFormatOptions, 'timeZone'>;

/** A lookup of one cached formatter per zone, all with the same locale and options. */
export function formatterPerZone(
  locale: string,
  options: ZoneFreeOptions,
): (timeZone: string) => Intl.DateTimeFormat {
  const byZone = new Map<string, Intl.DateTimeFormat>();
  return (timeZone) => {
    let format = byZone.get(timeZone);
    if (format === undefined) {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone });
      byZone.set(timeZone, format);
    }
    return format;
  };
}

/** The local calendar and clock fields at an instant, as Intl spells them (two digits, 24-hour clock). */
export interface ZonedParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  /** Lower-case short English weekday: "mon" … "sun". */
  weekday: string;
}

const partsFormatter = formatterPerZone('en-US', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

export function zonedParts(ms: number, timeZone: string): ZonedParts {
  const out: ZonedParts = { year: '', month: '', day: '', hour: '', minute: '', weekday: '' };
  for (const part of partsFormatter(timeZone).formatToParts(ms)) {
    if (part.type === 'weekday') out.weekday = part.value.toLowerCase();
    else if (part.type in out) out[part.type as keyof ZonedParts] = part.value;
  }
  return out;
}

/** Whether a zone name is one Intl knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    partsFormatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The local calendar date (`YYYY-MM-DD`) at an instant. */
export function localDate(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** Minutes since local midnight at `ms` in `timeZone`. */
export function localMinutes(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return Number(p.hour) * 60 + Number(p.minute);
}

/** Minutes since midnight of an "HH:MM" clock time. */
export function minutesOf(clock: string): number {
  const [hours = '0', minutes = '0'] = clock.split(':');
  return Number(hours) * 60 + Number(minutes);
}
