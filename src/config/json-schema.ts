// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" is the config's interpolation syntax, meant literally here.
/**
 * The JSON Schema of `shelfwatch.yaml`, generated from the same zod schema that checks it, so the
 * editor's completion can never disagree with `shelfwatch validate`. It describes the input side:
 * what a person writes (durations as "6h", plans as "studio"), not the parsed values.
 */
import { z } from 'zod';
import { configSchema } from './schema.ts';

const JSON_SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';

export function configJsonSchema(): Record<string, unknown> {
  // Without `unrepresentable: 'any'` a schema part that JSON Schema cannot express throws here
  // (and in the test) instead of silently turning into "anything goes".
  const generated = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title: 'shelfwatch configuration',
    description:
      'shelfwatch.yaml: workspaces to watch through the Publishing Analytics API, the rules that raise alerts, and the channels that deliver them. ${VAR} and ${VAR:-default} in string values read the environment.',
    ...generated,
  };
}
