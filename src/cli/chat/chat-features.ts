/**
 * What `mcpx chat` offers the servers it connects: the config's roots (if it
 * names any, see `sessionRoots`), and sampling and elicitation that always go through the person
 * at the terminal first. Without a terminal nobody can consent: sampling is
 * refused and forms are declined.
 */
import type { ChatModel } from '../../agent/index.js';
import { modelSampling, samplingExtras } from '../../agent/index.js';
import type { ServerConfig } from '../../config/index.js';
import { type ClientFeatures, createRoots, rootsForDirectories, samplingRefused } from '../../host/index.js';
import { confirm, say, type Terminal } from '../../text/index.js';
import { askedAt, terminalElicitation } from '../terminal/terminal-elicitation.js';

export interface ChatFeatureOptions {
  readonly model: ChatModel;
  /** Directories the servers may work in (the config's `roots`, see `sessionRoots`); none: roots are not declared. */
  readonly roots?: readonly string[];
  /** The person's terminal; absent when nobody can be asked (stdin or stderr is not one). */
  readonly terminal?: Terminal;
  /** A line for the person on stderr, terminal or not (the CLI's notices sanitise it). */
  readonly notice: (line: string) => void;
  /** Most tokens a server's sampling request may use. */
  readonly maxSamplingTokens?: number;
  /** Ctrl-C at one of these prompts: cancel the whole command, as Ctrl-C anywhere else does. */
  readonly onInterrupt?: () => void;
}

export function chatFeatures(options: ChatFeatureOptions): (server: ServerConfig) => ClientFeatures {
  const roots = options.roots ? createRoots(rootsForDirectories(options.roots)) : undefined;
  const { terminal } = options;
  const asked = askedAt(options.onInterrupt);
  return (server) => ({
    ...(roots ? { roots } : {}),
    sampling: modelSampling({
      model: options.model,
      maxTokens: options.maxSamplingTokens ?? 1024,
      onRefused: (message) => options.notice(`Server '${server.name}' asked the model: refused, ${message}`),
      async approve(question, signal) {
        if (!terminal) throw samplingRefused('no terminal: nobody could approve the sampling request');
        const wants = question.hints.length
          ? `; it prefers ${question.hints.join(', ')}, you use ${question.model}`
          : '';
        // Cut by code points once shown, so a hidden character's <U+XXXX> is never cut in half.
        const preview = [...say`${question.preview || '(no text)'}`].slice(0, 500).join('');
        return asked(
          confirm(
            terminal,
            {
              message: say`Server '${server.name}' asks the model (up to ${question.maxTokens} tokens${samplingExtras(question)}${wants}):\n  ${preview}\nAllow?`,
              default: false,
            },
            signal,
          ),
        );
      },
    }),
    elicitation: terminalElicitation(server, {
      ...(terminal ? { terminal } : {}),
      ...(options.onInterrupt ? { onInterrupt: options.onInterrupt } : {}),
    }),
  });
}
