/**
 * The config's settings that are allowed only because of `allowInsecure: true`. Apart from
 * `transport-security.ts` because it reads the whole config, whose schema imports those checks.
 */
import type { ConfigProblem } from '../config-kit/problems.ts';
import { hostName, isPlainOffLoopback } from '../config-kit/transport-security.ts';
import type { ShelfwatchConfig } from './schema.ts';

/**
 * What a valid config allows only because of `allowInsecure: true`: one line each, for `validate`
 * to print and `run` to log as warnings. Settings where the opt-out changes nothing stay quiet.
 */
export function insecureSettings(config: ShelfwatchConfig): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  config.workspaces.forEach((ws, index) => {
    if (ws.allowInsecure && isPlainOffLoopback(ws.baseUrl, 'http')) {
      warnings.push({
        path: `workspaces[${index}].baseUrl`,
        message: `plain http to "${hostName(ws.baseUrl)}" (allowInsecure: true): the API key and the data travel unencrypted`,
      });
    }
  });
  config.channels.forEach((channel, index) => {
    if (channel.type !== 'email' || !channel.allowInsecure) return;
    const url = channel.smtpUrl.reveal();
    if (isPlainOffLoopback(url, 'smtp')) {
      warnings.push({
        path: `channels[${index}].smtpUrl`,
        message: `STARTTLS not required by "${hostName(url)}" (allowInsecure: true): the SMTP password and the mail travel unencrypted when the server offers no TLS`,
      });
    }
  });
  return warnings;
}
