import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/errors.ts';
import { pickWorkspace, workspaceFromFlag } from '../../src/cli/workspace-flag.ts';
import { parseConfig } from '../../src/config/load.ts';
import { validRaw } from '../config/helpers.ts';

/** Every CLI look-up of a workspace goes through workspaceOf; an unknown id is a usage error. */
describe('workspaceFromFlag', () => {
  const parsed = parseConfig(validRaw());
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const config = parsed.config;

  it('finds a configured workspace', () => {
    expect(workspaceFromFlag(config, 'acme').id).toBe('acme');
    expect(pickWorkspace(config, undefined).id).toBe('acme');
  });

  it('refuses an unknown id with exit code 2, naming the flag and the known workspaces', () => {
    const refuse = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      throw new Error('expected a usage error');
    };
    const fromFlag = refuse(() => workspaceFromFlag(config, 'acne'));
    expect(fromFlag).toBeInstanceOf(CliError);
    expect((fromFlag as CliError).exitCode).toBe(2);
    expect((fromFlag as Error).message).toBe('--workspace: no workspace "acne" in the config (known: acme)');
    const fromArgument = refuse(() => workspaceFromFlag(config, 'acne', 'resume'));
    expect((fromArgument as Error).message).toBe('resume: no workspace "acne" in the config (known: acme)');
    expect((refuse(() => pickWorkspace(config, 'acne')) as Error).message).toContain('no workspace "acne"');
  });
});
