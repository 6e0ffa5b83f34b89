/**
 * How the API tells the month's 429 from the minute's (`errors.monthWhen`), from a 429 probe met: a
 * header whose name says a scope or period and whose value says the month (`X-RateLimit-Scope:
 * month`), or a quota-remaining header at 0. Without a 429 nothing can be seen, and the notes say so.
 * Pure.
 */
import type { CompiledContract, ContractFile } from '../../api/tooling.ts';
import type { RecordedAnswer } from './probe-analyse.ts';

type MonthWhen = NonNullable<NonNullable<ContractFile['errors']>['monthWhen']>;

const SCOPE_NAME = /scope|period|window|interval/i;
const QUOTA_LEFT = /quota.*remaining|remaining.*quota|month.*remaining/i;

/** The header rule one 429 shows, with its evidence; undefined when it shows none. */
function ruleOf(answer: RecordedAnswer): { rule: MonthWhen; evidence: string } | undefined {
  const where = `the 429 to GET ${answer.path.split('?')[0]}`;
  for (const [name, value] of Object.entries(answer.headers)) {
    if (SCOPE_NAME.test(name) && /month/i.test(value))
      return { rule: { header: name, equals: value }, evidence: `${where} said ${name}: ${value}` };
  }
  for (const [name, value] of Object.entries(answer.headers)) {
    if (QUOTA_LEFT.test(name) && value.trim() === '0')
      return {
        rule: { header: name, equals: '0' },
        evidence: `${where} said ${name}: 0 (no request left this month)`,
      };
  }
  return undefined;
}

/**
 * The rule to suggest (undefined: keep the contract's), and what a person must still check: a rule
 * from a 429 is offered with its evidence; without a month's 429 seen it cannot be checked.
 */
export function suggestMonthWhen(
  contract: CompiledContract,
  answers: readonly RecordedAnswer[],
  undecided: string[],
): MonthWhen | undefined {
  // A 429 whose code the contract already reads as the month's needs no other rule.
  const byCode = (a: RecordedAnswer) => {
    const code = contract.errorBody(a.body)?.code;
    return code !== undefined && contract.errorCode(code) === 'quota_exceeded';
  };
  if (answers.some((a) => a.status === 429 && byCode(a))) return undefined;
  const limited = answers.filter((a) => a.status === 429);
  const found = limited.map(ruleOf).find((r) => r !== undefined);
  const current = contract.source.errors?.monthWhen;
  if (found !== undefined) {
    undecided.push(
      `errors.monthWhen: ${found.evidence}: a 429 with it waits for the month's reset, any other for the minute (check that the minute's 429 does not say it)`,
    );
    return found.rule;
  }
  if (current !== undefined) return undefined;
  undecided.push(
    limited.length > 0
      ? `errors.monthWhen: ${limited.length} 429 answer(s) seen, none saying the month by a header (scope, period, or a quota remaining of 0): a month's 429 under the minute's code would be waited out a minute at a time; see the API document (errors.monthWhen: { header | path, equals })`
      : `errors.monthWhen: not checked (no 429 was answered): if the API sends the month's 429 and the minute's under one code, say what tells them apart (a header or a field of the error body)`,
  );
  return undefined;
}
