import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from '../io/io.js';
import type { ArgumentSources } from './type-arguments.js';

/** `@file` relative to the working directory, `-` from the CLI's stdin. */
export function cliArgumentSources(io: Pick<CliIo, 'cwd' | 'stdin'>): ArgumentSources {
  return {
    readFile: (path) => readFile(resolve(io.cwd, path), 'utf8'),
    async readStdin() {
      const stdin = io.stdin;
      if (!stdin) throw new Error('no stdin');
      let text = '';
      stdin.setEncoding('utf8');
      for await (const chunk of stdin) text += chunk as string;
      return text;
    },
  };
}
