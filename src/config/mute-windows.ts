/**
 * Recurring mute windows (`muteWindows`): in a time zone, on some weekdays and/or between two local
 * dates, between two local times, alerts that match are recorded as silenced instead of sent.
 * "Launch week: only critical" is a date range that matches severity info and warning.
 */
import { z } from 'zod';
import { asinSchema } from '../api/index.ts';
import { clockTimeField, idField, timeZoneField, uniqueList } from '../config-kit/fields.ts';
import { ALERT_KINDS } from '../model/alert.ts';
import { severitySchema } from '../rules/config.ts';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const localDate = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'expected a local date "YYYY-MM-DD"');

const muteMatch = z
  .strictObject({
    workspace: idField('a workspace').optional(),
    asin: uniqueList(asinSchema, 'ASIN').min(1, 'expected at least one ASIN').optional(),
    author: z.string().trim().min(1, 'expected an author name').optional(),
    keyword: z.string().trim().min(1, 'expected a keyword').optional(),
    kind: uniqueList(z.enum(ALERT_KINDS), 'kind').min(1, 'expected at least one alert kind').optional(),
    severity: uniqueList(severitySchema, 'severity').min(1, 'expected at least one severity').optional(),
  })
  .refine((match) => Object.values(match).some((value) => value !== undefined), {
    message: 'expected at least one matcher (workspace, asin, author, keyword, kind or severity)',
    params: { hint: 'to mute everything in a window, match every severity: [info, warning, critical]' },
  });

export const muteWindowSchema = z
  .strictObject({
    name: idField('a mute window').meta({ description: 'Shown in status and on silenced alerts.' }),
    timeZone: timeZoneField.default('UTC'),
    days: uniqueList(z.enum(WEEKDAYS), 'day')
      .min(1, 'expected at least one day')
      .optional()
      .meta({ description: 'Weekdays the window opens on (local). Default: every day.' }),
    from: localDate.optional().meta({ description: 'First local date (inclusive).' }),
    until: localDate.optional().meta({ description: 'Last local date (inclusive).' }),
    start: clockTimeField.default('00:00').meta({ description: 'Local time the window opens each day.' }),
    end: clockTimeField
      .default('00:00')
      .meta({ description: 'Local time it closes; before start wraps past midnight; equal = all day.' }),
    match: muteMatch.meta({ description: 'Alerts the window mutes: every matcher given must hold.' }),
    reason: z.string().trim().min(1, 'expected a reason').optional(),
  })
  .refine((w) => w.from === undefined || w.until === undefined || w.from <= w.until, {
    message: 'expected "until" on or after "from"',
    path: ['until'],
  });

export type MuteWindowConfig = z.output<typeof muteWindowSchema>;
