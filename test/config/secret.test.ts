import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config-kit/secret.ts';

describe('Secret', () => {
  const secret = new Secret('sk-live-very-secret');

  it('gives the value only through reveal()', () => {
    expect(secret.reveal()).toBe('sk-live-very-secret');
  });

  it('shows [redacted] in JSON, inspect, template strings and concatenation', () => {
    const holder = { apiKey: secret, nested: [{ token: secret }] };
    expect(JSON.stringify(holder)).toBe('{"apiKey":"[redacted]","nested":[{"token":"[redacted]"}]}');
    expect(inspect(holder, { depth: 10, showHidden: true })).not.toContain('very-secret');
    expect(inspect(secret)).toBe('[redacted]');
    expect(`${secret}`).toBe('[redacted]');
    expect(`key=${secret}`).toBe('key=[redacted]');
    expect(String(secret)).toBe('[redacted]');
    expect(`x${secret}`).not.toContain('very-secret');
  });

  it('exposes no enumerable state', () => {
    expect(Object.keys(secret)).toEqual([]);
    expect(Object.entries({ ...secret })).toEqual([]);
    expect(JSON.stringify(Object.getOwnPropertyNames(secret))).not.toContain('very-secret');
  });
});
