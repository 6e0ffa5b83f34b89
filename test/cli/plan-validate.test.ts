/** `plan` and `validate` without Redis: exit codes, --json shapes, and `--config -` (stdin). */
import { describe, expect, it } from 'vitest';
import { EXIT_PLAN_DOES_NOT_FIT } from '../../src/cli/errors.ts';
import { tempDir, validRaw } from '../config/helpers.ts';
import { CLI_TEST_TIMEOUT_MS, shelfwatch, writeConfig } from '../helpers/cli.ts';

const dir = tempDir();

function withPlan(plan: string): Record<string, unknown> {
  const raw = validRaw();
  const [ws] = raw.workspaces as Record<string, unknown>[];
  Object.assign(ws ?? {}, { plan });
  return raw;
}

const fits = writeConfig(dir, 'fits.yaml', withPlan('studio'));
const tooSmall = writeConfig(dir, 'too-small.yaml', withPlan('custom:1:1'));
// A month to spare and one request a minute: the minute is what binds.
const tooSlow = writeConfig(dir, 'too-slow.yaml', {
  ...withPlan('custom:10:1000000000'),
  workspaces: (withPlan('custom:10:1000000000').workspaces as Record<string, unknown>[]).map((ws) => ({
    ...ws,
    cadence: { book: '10s' },
  })),
});

interface PlanJson {
  fits: boolean;
  workspaces: {
    id: string;
    fits: boolean;
    projectedUse: number;
    plannableBudget: number;
    targets: unknown[];
  }[];
}

describe('shelfwatch plan and validate', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it(`plan exits ${EXIT_PLAN_DOES_NOT_FIT} with one line when the plan does not fit, 0 when it does`, async () => {
    const [over, ok, overJson, okJson] = await Promise.all([
      shelfwatch(['plan', '--offline', '--config', tooSmall]),
      shelfwatch(['plan', '--offline', '--config', fits]),
      shelfwatch(['plan', '--offline', '--json', '--config', tooSmall]),
      shelfwatch(['plan', '--offline', '--json', '--config', fits]),
    ]);
    expect(over.code).toBe(EXIT_PLAN_DOES_NOT_FIT);
    expect(over.stdout).toMatch(/fits +NO/);
    expect(over.stderr).toMatch(
      /^shelfwatch: workspace acme: the plan does NOT fit the month: [\d,]+ requests needed, [\d,]+ plannable: drop targets, allow slower cadences, lower the reserve or raise the plan\n$/,
    );
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect(overJson.code).toBe(EXIT_PLAN_DOES_NOT_FIT);
    const printed = JSON.parse(overJson.stdout) as PlanJson;
    expect(printed.fits).toBe(false);
    expect(printed.workspaces[0]).toMatchObject({ id: 'acme', fits: false });
    expect(printed.workspaces[0]?.projectedUse).toBeGreaterThan(printed.workspaces[0]?.plannableBudget ?? 0);
    const okPrinted = JSON.parse(okJson.stdout) as PlanJson;
    expect(okJson.code).toBe(0);
    expect(okPrinted.fits).toBe(true);
    expect(okPrinted.workspaces[0]?.targets).toHaveLength(7);
    expect(okPrinted.workspaces[0]?.targets[0]).toMatchObject({
      id: expect.any(String),
      cadenceMs: expect.any(Number),
    });
  });

  it('plan names the per-minute limit, with its figures, when the month fits but the minute does not', async () => {
    const slow = await shelfwatch(['plan', '--offline', '--config', tooSlow]);
    expect(slow.code).toBe(EXIT_PLAN_DOES_NOT_FIT);
    expect(slow.stderr).toMatch(
      /^shelfwatch: workspace acme: the plan does NOT fit the per-minute limit: [\d.]+ requests a minute needed on average, [\d.]+ plannable \(\d+ a minute less the \d+% reserve kept for interactive commands\): drop targets/,
    );
    expect(slow.stderr).not.toContain('month');
  });

  it('validate --json: {ok, source, summary} or {ok: false, problems} with exit 2', async () => {
    const broken = writeConfig(dir, 'broken.yaml', withPlan('gold'));
    const [good, bad] = await Promise.all([
      shelfwatch(['validate', '--json', '--config', fits]),
      shelfwatch(['validate', '--json', '--config', broken]),
    ]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({
      ok: true,
      source: fits,
      summary: { workspaces: 1, targets: 7, channels: 3 },
    });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({
      ok: false,
      source: broken,
      problems: [
        expect.objectContaining({ path: 'workspaces[0].plan', message: expect.stringContaining('"gold"') }),
      ],
    });
    expect(bad.stderr).toBe(`shelfwatch: ${broken}: 1 problem(s), listed in the JSON\n`);
  });

  it('--config - reads the config from stdin', async () => {
    const text = JSON.stringify(withPlan('studio'));
    const [good, bad] = await Promise.all([
      shelfwatch(['validate', '--config', '-'], {}, 30_000, text),
      shelfwatch(['validate', '--config', '-'], {}, 30_000, 'workspaces: [}'),
    ]);
    // No console.publicUrl: valid, and messages carry no mute links, which validate notes.
    expect(good.stderr).toBe(
      'shelfwatch: note: console.publicUrl: not set: messages will carry no mute or unsubscribe links (set the address people open the console at, and console.linkSecret)\n',
    );
    expect(good.stdout).toBe('config OK: 1 workspace, 7 targets, 3 channels\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^shelfwatch: \(stdin\): 1 problem\n {2}\(stdin\):1:\d+: invalid YAML/);
  });
});
