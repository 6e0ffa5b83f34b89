/**
 * A generic condition: clear → pending (for N polls) → firing → clear again, with hysteresis.
 * The state is plain JSON so the poller can store it next to the snapshot. Kind-specific code
 * decides what "breached" and "recovered" mean and what the baseline is; this file only moves
 * between phases and says which notification (if any) the move calls for. The phases themselves
 * are stored shapes (`rule-state/condition.ts`).
 */
import type { ClearCondition, ConditionState, FiringCondition } from '../rule-state/condition.ts';

/** One poll's verdict, computed by the alert kind against the state it was given. */
export interface Judgement {
  /** The condition holds (clear or pending phase). */
  breached: boolean;
  /** Back inside the re-arm band (firing phase); only this resolves a firing condition. */
  recovered: boolean;
  /** The baseline to keep if this poll leaves the condition clear, or to freeze if it starts pending. */
  baseline: number | null;
  baselineAt: number;
  /** This poll's reading where higher is worse (a rank; Infinity for unranked), tracked while firing. */
  reading?: number;
}

export interface ConditionOptions {
  /** Consecutive breached polls before firing (≥ 1). */
  for: number;
  repeatEveryMs?: number | undefined;
  /** This poll's time. */
  at: number;
}

export type Transition =
  | { type: 'fire' }
  | { type: 'repeat'; index: number }
  | { type: 'resolve'; firing: FiringCondition };

export interface Step {
  state: ConditionState;
  transition: Transition | null;
  /** The episode this poll belongs to (see `clearAt`). */
  episode: number;
}

/**
 * The judgement of a clear or pending condition: a breach keeps the bar it broke (frozen while
 * pending, told in the alert, re-armed against), a reading that breaches nothing rolls the
 * baseline on. `reading` is for kinds that track their worst reading while firing.
 */
export function breachJudgement(
  breached: boolean,
  bar: { baseline: number | null; at: number },
  rolled: { baseline: number | null; at: number },
  reading?: number,
): Judgement {
  const kept = breached ? bar : rolled;
  return {
    breached,
    recovered: false,
    baseline: kept.baseline,
    baselineAt: kept.at,
    ...(reading === undefined ? {} : { reading }),
  };
}

export function initialCondition(baseline: number | null, at: number): ClearCondition {
  return { phase: 'clear', baseline, baselineAt: at, clearAt: at };
}

/** `judgement` null means "no usable reading this poll": nothing changes, nothing is counted. */
export function stepCondition(
  state: ConditionState,
  judgement: Judgement | null,
  opts: ConditionOptions,
): Step {
  if (judgement === null) return { state, transition: null, episode: state.clearAt };
  const { at } = opts;
  if (state.phase === 'firing') {
    if (judgement.recovered) {
      return {
        state: {
          phase: 'clear',
          baseline: judgement.baseline,
          baselineAt: judgement.baselineAt,
          clearAt: at,
        },
        transition: { type: 'resolve', firing: state },
        episode: state.clearAt,
      };
    }
    const worse = worsened(state, judgement.reading);
    const every = opts.repeatEveryMs;
    if (every !== undefined && every > 0 && at - state.lastNotifiedAt >= every) {
      const repeatCount = state.repeatCount + 1;
      return {
        state: { ...worse, lastNotifiedAt: at, repeatCount },
        transition: { type: 'repeat', index: repeatCount },
        episode: state.clearAt,
      };
    }
    return { state: worse, transition: null, episode: state.clearAt };
  }
  if (!judgement.breached) {
    return {
      state: { phase: 'clear', baseline: judgement.baseline, baselineAt: judgement.baselineAt, clearAt: at },
      transition: null,
      episode: at,
    };
  }
  // Entering pending from clear freezes the baseline this poll was judged against.
  const frozen =
    state.phase === 'clear'
      ? { baseline: judgement.baseline, baselineAt: judgement.baselineAt }
      : { baseline: state.baseline, baselineAt: state.baselineAt };
  const count = state.phase === 'pending' ? state.count + 1 : 1;
  if (count >= opts.for) {
    return {
      state: {
        phase: 'firing',
        ...frozen,
        clearAt: state.clearAt,
        firedAt: at,
        lastNotifiedAt: at,
        repeatCount: 0,
        ...(judgement.reading === undefined ? {} : { worst: judgement.reading }),
      },
      transition: { type: 'fire' },
      episode: state.clearAt,
    };
  }
  return {
    state: { phase: 'pending', ...frozen, clearAt: state.clearAt, count },
    transition: null,
    episode: state.clearAt,
  };
}

/** The firing state with `reading` taken into its low point (the same object when nothing changes). */
function worsened(state: FiringCondition, reading: number | undefined): FiringCondition {
  if (reading === undefined || state.worst === undefined || reading <= state.worst) return state;
  return { ...state, worst: reading };
}

/** The fingerprint observation of a transition: the episode, plus what happened in it. */
export function transitionObservation(transition: Transition, episode: number): string {
  switch (transition.type) {
    case 'fire':
      return `episode:${episode}`;
    case 'repeat':
      return `episode:${episode}:repeat:${transition.index}`;
    case 'resolve':
      return `episode:${episode}:resolved`;
  }
}
