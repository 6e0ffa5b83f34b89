// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { interpolate } from '../../src/config-kit/interpolate.ts';
import { problemAt, tempDir, writeFile } from './helpers.ts';

describe('interpolate', () => {
  const env = { API_KEY: 'sk-1', EMPTY: '', HOST: 'redis.internal' };

  it('replaces ${VAR} in any string value, nested in lists and mappings', () => {
    const result = interpolate(
      { a: '${API_KEY}', list: ['x-${HOST}-y', 3, true, null], deep: { b: 'redis://${HOST}:6379' } },
      env,
    );
    expect(result.problems).toEqual([]);
    expect(result.value).toEqual({
      a: 'sk-1',
      list: ['x-redis.internal-y', 3, true, null],
      deep: { b: 'redis://redis.internal:6379' },
    });
  });

  it('uses the default of ${VAR:-default} when the variable is unset or empty', () => {
    const result = interpolate(
      { a: '${NOPE:-fallback}', b: '${EMPTY:-d}', c: '${API_KEY:-unused}', d: '${NOPE:-}' },
      env,
    );
    expect(result.value).toEqual({ a: 'fallback', b: 'd', c: 'sk-1', d: '' });
    expect(result.problems).toEqual([]);
  });

  it('keeps an empty but set variable for a plain ${VAR}', () => {
    expect(interpolate({ a: '[${EMPTY}]' }, env).value).toEqual({ a: '[]' });
  });

  it('writes a literal ${ for $${', () => {
    const result = interpolate({ a: 'cost: $${API_KEY} and ${API_KEY}', b: '$5 and $$' }, env);
    expect(result.value).toEqual({ a: 'cost: ${API_KEY} and sk-1', b: '$5 and $$' });
    expect(result.problems).toEqual([]);
  });

  it('names the variable and the config path of a missing variable', () => {
    const result = interpolate({ workspaces: [{ id: 'a' }, { apiKey: '${MISSING_KEY}' }] }, env);
    expect(result.problems).toHaveLength(1);
    const [problem] = result.problems;
    expect(problem?.path).toBe('workspaces[1].apiKey');
    expect(problem?.message).toContain('MISSING_KEY');
    expect(problem?.hint).toContain('${MISSING_KEY:-');
  });

  it('reports a malformed or unclosed reference', () => {
    const result = interpolate({ a: '${not valid}', b: 'x ${OPEN' }, env);
    expect(result.problems.map((p) => p.path)).toEqual(['a', 'b']);
    expect(result.problems[1]?.message).toContain('closing "}"');
  });

  it('does not interpolate keys', () => {
    expect(interpolate({ '${API_KEY}': 'v' }, env).value).toEqual({ '${API_KEY}': 'v' });
  });
});

describe('interpolation while loading a file', () => {
  const dir = tempDir();

  it('reads the env map it is given, and reports every missing variable with its path', () => {
    const file = writeFile(
      dir,
      'vars.yaml',
      [
        'workspaces:',
        '  - id: acme',
        '    baseUrl: ${BASE_URL:-https://api.example.com}',
        '    apiKey: ${PUBLISHING_API_KEY}',
        '    books: [{ asin: B0CJ4XQ2ZK }]',
        'channels:',
        '  - { id: s, type: slack, webhookUrl: "${SLACK_WEBHOOK_URL}" }',
        'server: { port: "${PORT:-9100}" }',
      ].join('\n'),
    );
    const ok = loadConfig({
      path: file,
      env: { PUBLISHING_API_KEY: 'k1', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/x' },
    });
    expect(ok.ok && ok.config.workspaces[0]?.apiKey.reveal()).toBe('k1');
    expect(ok.ok && ok.config.server.port).toBe(9100);

    const missing = loadConfig({ path: file, env: {} });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    // One problem per missing variable, not a second schema complaint about the emptied value.
    expect(missing.problems).toHaveLength(2);
    expect(problemAt(missing.problems, 'workspaces[0].apiKey').message).toContain('PUBLISHING_API_KEY');
    expect(problemAt(missing.problems, 'channels[0].webhookUrl').message).toContain('SLACK_WEBHOOK_URL');
  });
});
