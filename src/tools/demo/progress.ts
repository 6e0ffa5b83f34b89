/**
 * Live progress in the form the terminal suits: on a TTY, milestones scroll by above a small panel
 * that is redrawn in place (ANSI cursor movement, no dependency); elsewhere (CI, a pipe), plain
 * timestamped lines and a status line every few seconds. Text that came from the API (keywords,
 * titles) is stripped of control and bidi characters first: it must not drive the terminal.
 */
import type { DemoTracker } from './tracker.ts';

export interface DemoOutput {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Width of the terminal; lines are cut to it so a redraw never wraps. */
  columns(): number;
}

export interface BudgetView {
  minuteUsed: number;
  perMinute: number;
  monthUsed: number;
  perMonth: number;
}

export interface ProgressSource {
  tracker: DemoTracker;
  /** Lines that do not change: where Redis, the simulator and the files are. */
  about: readonly string[];
  simNow(): number;
  budget(): Promise<BudgetView>;
}

export interface Progress {
  /** Stops redrawing and leaves the last state on screen (the cursor shown again). */
  stop(): void;
}

const CSI = '\u001b[';
const PLAIN_STATUS_EVERY_MS = 5_000;
const REDRAW_EVERY_MS = 200;

function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code < 0xa0) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Untrusted text made safe to print: controls and direction overrides become spaces. */
export function terminalSafe(text: string): string {
  let out = '';
  for (const char of text) out += isUnsafe(char.codePointAt(0) ?? 0) ? ' ' : char;
  return out;
}

function cut(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join('')}…`;
}

const n = (value: number) => value.toLocaleString('en-US');

function simClock(ms: number): string {
  const date = new Date(ms);
  const day = date.toLocaleDateString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
  return `${day} ${date.toISOString().slice(11, 16)} UTC`;
}

function pollsLine(t: DemoTracker): string {
  const p = t.polls;
  return `${n(p.ok)} ok (${p.baselines} silent baselines) · ${p.noData} no data · ${p.errors} errors${p.deferred > 0 ? ` · ${p.deferred} deferred` : ''}`;
}

function budgetLine(b: BudgetView | undefined): string {
  if (b === undefined) return '…';
  return `${n(b.minuteUsed)}/${n(b.perMinute)} this sim minute · ${n(b.monthUsed)}/${n(b.perMonth)} this month`;
}

function alertsLine(t: DemoTracker): string {
  const sent = [...t.channels].map(([id, c]) => `${id} ${c.messages} msg (${c.alerts} alerts)`);
  return `${n(t.alertsRaised)} raised · sent: ${sent.length === 0 ? 'none yet' : sent.join(' · ')}`;
}

function scriptedLine(t: DemoTracker, channels: number): string {
  if (t.scripted.length === 0) return 'after the baselines';
  return t.scripted
    .map((e) => {
      const delivered = e.alert === undefined ? 0 : t.deliveredOn(e.alert.fingerprint).size;
      const mark = e.scriptedAt === undefined ? '·' : delivered >= channels ? '✓' : '…';
      return `${mark} ${e.label}`;
    })
    .join('   ');
}

export function panelLines(
  source: ProgressSource,
  budget: BudgetView | undefined,
  channels: number,
): string[] {
  const t = source.tracker;
  const lines = [
    `── shelfwatch demo ── sim clock ${simClock(source.simNow())}`,
    ...source.about,
    `Phase     ${t.phase}`,
    `Polls     ${pollsLine(t)}`,
    `Budget    ${budgetLine(budget)}`,
    `Alerts    ${alertsLine(t)}`,
    `Scripted  ${scriptedLine(t, channels)}`,
  ];
  t.recent.forEach((alert, i) => {
    lines.push(
      `${i === 0 ? 'Latest' : ''.padEnd(6)}    ${alert.kind.padEnd(18)} ${terminalSafe(alert.title)}`,
    );
  });
  return lines;
}

function stamp(): string {
  return new Date().toISOString().slice(11, 19);
}

export function startProgress(out: DemoOutput, source: ProgressSource, channels: number): Progress {
  let budget: BudgetView | undefined;
  let fetching = false;
  const refreshBudget = () => {
    if (fetching) return;
    fetching = true;
    source
      .budget()
      .then((b) => {
        budget = b;
      })
      .catch(() => {})
      .finally(() => {
        fetching = false;
      });
  };
  const notes: string[] = [];
  const onNote = (line: string) => {
    if (out.isTTY) notes.push(line);
    else out.write(`${stamp()}  ${terminalSafe(line)}\n`);
  };
  source.tracker.on('note', onNote);

  if (!out.isTTY) {
    let stopped = false;
    const status = async () => {
      const current = await source.budget().catch(() => undefined);
      // The summary may be printing by now: a late status line must not land in its middle.
      if (stopped) return;
      const t = source.tracker;
      out.write(
        `${stamp()}  status: polls ${pollsLine(t)} | budget ${budgetLine(current)} | alerts ${alertsLine(t)}\n`,
      );
    };
    const timer = setInterval(() => void status(), PLAIN_STATUS_EVERY_MS);
    return {
      stop() {
        stopped = true;
        clearInterval(timer);
        source.tracker.off('note', onNote);
      },
    };
  }

  let height = 0;
  const draw = () => {
    const width = Math.max(20, out.columns() - 1);
    let text = height > 0 ? `${CSI}${height}F${CSI}J` : '';
    for (const note of notes.splice(0)) text += `${cut(`${stamp()}  ${terminalSafe(note)}`, width)}\n`;
    const lines = panelLines(source, budget, channels).map((line) => cut(line, width));
    text += `${lines.join('\n')}\n`;
    height = lines.length;
    out.write(text);
  };
  // Hidden while redrawing (no flicker); shown again even if the process exits another way.
  const showCursor = () => out.write(`${CSI}?25h`);
  process.once('exit', showCursor);
  out.write(`${CSI}?25l`);
  refreshBudget();
  draw();
  const timer = setInterval(() => {
    refreshBudget();
    draw();
  }, REDRAW_EVERY_MS);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      draw();
      source.tracker.off('note', onNote);
      process.off('exit', showCursor);
      showCursor();
    },
  };
}
