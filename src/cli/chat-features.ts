/**
 * What `mcpx chat` offers the servers it connects: the config's roots (if it
 * names any, see `sessionRoots`), and sampling and elicitation that always go through the person
 * at the terminal first. Without a terminal nobody can consent: sampling is
 * refused and forms are declined.
 */
import type { ChatModel } from '../agent/index.js';
import { modelSampling, samplingExtras } from '../agent/index.js';
import type { ServerConfig } from '../config/index.js';
import { type ClientFeatures, createRoots, rootsForDirectories, samplingRefused } from '../host/index.js';
import { forTerminal } from '../text/index.js';
import { askedAt, terminalElicitation } from './terminal-elicitation.js';

export interface ChatFeatureOptions {
  readonly model: ChatModel;
  /** Directories the servers may work in (the config's `roots`, see `sessionRoots`); none: roots are not declared. */
  readonly roots?: readonly string[];
  /** A person can be asked (stdin and stderr are terminals). */
  readonly interactive: boolean;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Most tokens a server's sampling request may use. */
  readonly maxSamplingTokens?: number;
  /** Ctrl-C at one of these prompts: cancel the whole command, as Ctrl-C anywhere else does. */
  readonly onInterrupt?: () => void;
}

const show = forTerminal;

export function chatFeatures(options: ChatFeatureOptions): (server: ServerConfig) => ClientFeatures {
  const roots = options.roots ? createRoots(rootsForDirectories(options.roots)) : undefined;
  const streams = { input: options.input, output: options.output };
  const asked = askedAt(options.onInterrupt);
  return (server) => ({
    ...(roots ? { roots } : {}),
    sampling: modelSampling({
      model: options.model,
      maxTokens: options.maxSamplingTokens ?? 1024,
      onRefused: (message) =>
        options.output.write(`${show(`Server '${server.name}' asked the model: refused, ${message}`)}\n`),
      async approve(question, signal) {
        if (!options.interactive)
          throw samplingRefused('no terminal: nobody could approve the sampling request');
        const { confirm } = await import('@inquirer/prompts');
        const wants = question.hints.length
          ? `; it prefers ${show(question.hints.join(', '))}, you use ${show(question.model)}`
          : '';
        return asked(
          confirm(
            {
              message: `Server '${show(server.name)}' asks the model (up to ${question.maxTokens} tokens${show(samplingExtras(question))}${wants}):\n  ${show(question.preview || '(no text)').slice(0, 500)}\nAllow?`,
              default: false,
            },
            { ...streams, signal },
          ),
        );
      },
    }),
    elicitation: terminalElicitation(server, {
      ...streams,
      interactive: options.interactive,
      ...(options.onInterrupt ? { onInterrupt: options.onInterrupt } : {}),
    }),
  });
}
