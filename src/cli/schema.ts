import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { configJsonSchema } from '../config/json-schema.ts';
import { summaryOf } from './commands.ts';
import { CliError } from './errors.ts';
import type { CliIo } from './io.ts';

export function registerSchemaCommand(program: Command, io: CliIo): void {
  program
    .command('schema')
    .description(summaryOf('schema'))
    .option('-o, --out <file>', 'write it to this file instead of standard output')
    .addHelpText(
      'after',
      `
Examples:
  $ shelfwatch schema --out shelfwatch.schema.json
  $ shelfwatch schema | jq '.properties.workspaces'

Then put this first line in shelfwatch.yaml (VS Code YAML extension, other yaml-language-server editors):
  # yaml-language-server: $schema=./shelfwatch.schema.json`,
    )
    .action((options: { out?: string }) => {
      const text = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
      if (options.out === undefined) {
        io.stdout.write(text);
        return;
      }
      try {
        writeFileSync(resolve(io.cwd, options.out), text);
      } catch (error) {
        throw new CliError(`schema: cannot write ${options.out}: ${(error as Error).message}`, {
          exitCode: 1,
          cause: error,
        });
      }
      io.stderr.write(`wrote the JSON Schema to ${options.out}\n`);
    });
}
