import { SimConfigError } from './errors.ts';

export type PlanName = 'studio' | 'publisher' | 'custom';

export interface SimPlan {
  name: PlanName;
  perMinute: number;
  perMonth: number;
}

export interface SimKeySpec {
  key: string;
  workspace: string;
  plan: SimPlan;
  /** Path prefixes this key gets 403 forbidden on, e.g. '/v1/arc' (an endpoint not in the plan). */
  disabledEndpoints?: string[];
}

export const STUDIO: SimPlan = { name: 'studio', perMinute: 60, perMonth: 100_000 };
export const PUBLISHER: SimPlan = { name: 'publisher', perMinute: 300, perMonth: 1_000_000 };

export const DEMO_KEYS: SimKeySpec[] = [
  { key: 'sk_demo_studio', workspace: 'demo-studio', plan: STUDIO },
  { key: 'sk_demo_publisher', workspace: 'demo-publisher', plan: PUBLISHER },
];

const CUSTOM_RE = /^custom:(\d{1,12}):(\d{1,15})$/;

/** 'studio', 'publisher' or 'custom:PER_MINUTE:PER_MONTH' (whole numbers ≥ 1). */
export function parsePlan(text: string): SimPlan {
  if (text === 'studio') return { ...STUDIO };
  if (text === 'publisher') return { ...PUBLISHER };
  const m = CUSTOM_RE.exec(text);
  const perMinute = Number(m?.[1]);
  const perMonth = Number(m?.[2]);
  if (m === null || perMinute < 1 || perMonth < 1 || !Number.isSafeInteger(perMonth)) {
    throw new SimConfigError(
      `plan must be "studio", "publisher" or "custom:PER_MINUTE:PER_MONTH" with whole numbers of at least 1, got "${text}"`,
    );
  }
  return { name: 'custom', perMinute, perMonth };
}

export function describePlan(plan: SimPlan): string {
  return `${plan.name} (${plan.perMinute}/min, ${plan.perMonth}/month)`;
}

interface KeyState {
  readonly spec: SimKeySpec;
  revoked: boolean;
}

/**
 * Keys and the workspaces they belong to. Limits count per workspace, and a workspace has one
 * plan: the plan of the key most recently added for it.
 */
export class KeyRegistry {
  private readonly keys = new Map<string, KeyState>();
  private readonly plans = new Map<string, SimPlan>();

  constructor(specs: readonly SimKeySpec[]) {
    for (const spec of specs) this.add(spec);
  }

  add(spec: SimKeySpec): void {
    if (spec.key.trim() === '' || /\s/.test(spec.key))
      throw new SimConfigError('a key must be non-empty without spaces');
    if (spec.workspace.trim() === '')
      throw new SimConfigError(`key ${spec.key.slice(0, 6)}… needs a workspace`);
    this.keys.set(spec.key, { spec: { ...spec, plan: { ...spec.plan } }, revoked: false });
    this.plans.set(spec.workspace, { ...spec.plan });
  }

  /** Returns false when no such key was ever added. */
  revoke(key: string): boolean {
    const state = this.keys.get(key);
    if (state === undefined) return false;
    state.revoked = true;
    return true;
  }

  /** The key's spec, unless it is unknown or revoked. */
  lookup(key: string): SimKeySpec | undefined {
    const state = this.keys.get(key);
    return state === undefined || state.revoked ? undefined : state.spec;
  }

  plan(workspace: string): SimPlan | undefined {
    return this.plans.get(workspace);
  }

  workspaces(): { workspace: string; plan: SimPlan; keys: number }[] {
    return [...this.plans].map(([workspace, plan]) => ({
      workspace,
      plan,
      keys: [...this.keys.values()].filter((state) => !state.revoked && state.spec.workspace === workspace)
        .length,
    }));
  }
}
