/**
 * Every top-level command by name with its one-line summary: all the root program knows before a
 * command runs (`shelfwatch --help` lists these). A command's options, help and code live in its
 * own module, loaded when it runs (program.ts); each module describes itself with `summaryOf`.
 * Kept free of imports so the root program costs nothing to build.
 */
export const COMMAND_SUMMARIES = {
  run: 'run the reconciler and the poll and delivery workers until SIGTERM/SIGINT',
  sim: 'run the simulator of the assumed Publishing Analytics API (seeded world, limits, faults)',
  demo: 'see shelfwatch work in about 15 seconds: simulator, workers, scripted events, captured Slack and email',
  plan: "show each target's poll cadence and what the month's request budget allows",
  probe: 'ask the API what it really answers and compare it with the contract shelfwatch expects',
  init: "probe the API, discover the account's books and ARC campaigns, and write a starting config",
  digest: 'build the daily digest now: send it to the configured recipients, or write it to a file',
  validate: 'check the config and print every problem (exit 2), or a summary (exit 0)',
  schema: 'print the JSON Schema of shelfwatch.yaml (for editor completion and checks)',
  status: 'show budgets, poll schedules and outcomes, channel health, dead letters and queue depths',
  'test-alert': 'send a sample alert through every channel (or one) and say which ones work',
  keywords: 'search keywords: search volume, competition and intent, highest volume first',
  arc: 'ARC (advance reader copy) campaigns',
  dlq: 'list, retry or purge dead letters (deliveries that failed for good)',
  export: 'export rank history, sales days or the alert log as CSV or JSON',
  resume: 'lift the pause of a workspace (after a 429, an exhausted quota or a refused key)',
  shards: 'the shards workspaces are spread over (show, migrate)',
  silence: 'add, list or expire silences: matching alerts are recorded, not sent',
  snooze: 'mute one firing condition until it resolves (or --for / --until)',
  console: 'Serve the web console (reads Redis only: it spends no API request)',
  config: 'the live configuration: apply a file, export, history, diff, rollback (no restart needed)',
} as const;

export type CommandName = keyof typeof COMMAND_SUMMARIES;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_SUMMARIES, name);
}

export function summaryOf(name: CommandName): string {
  return COMMAND_SUMMARIES[name];
}
