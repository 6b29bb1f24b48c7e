import { forTerminal, renderContentBlock, say } from '../../text/index.js';
import { cliArgumentSources } from '../arguments/cli-sources.js';
import { parseArgumentWords, promptArguments, readArgumentSources } from '../arguments/type-arguments.js';
import { commandFeatures, explainUnanswered } from '../context/command-features.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { truncate } from '../output/table.js';
import { forServers } from '../target/fan-out.js';
import { reportFailures } from '../target/report.js';
import { resolveTarget } from '../target/target.js';

/** `mcpx prompts [server]` */
export async function runPrompts(session: CliContext, name: string | undefined): Promise<number> {
  const outcomes = await forServers(session, name, (c) => c.listPrompts());
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(
      toJson(outcomes.flatMap((o) => (o.ok ? [{ server: o.server.name, prompts: o.value }] : []))),
    );
  } else {
    for (const o of outcomes) {
      if (!o.ok) continue;
      io.stdout.write(say`${o.server.name} (${plural(o.value.length, 'prompt')})\n`);
      for (const p of o.value) {
        const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
        const description = p.description ? `  ${truncate(p.description, 70)}` : '';
        io.stdout.write(say`  ${p.name}(${args})${description}\n`);
      }
    }
  }
  return reportFailures(session, outcomes);
}

/** `mcpx prompt <server>.<name> [k=v ...]`: renders the prompt's messages. */
export async function runPrompt(door: CliDoor, target: string, rawArgs: readonly string[]): Promise<number> {
  const { io, options } = door;
  // A prompt may ask its questions (elicitation) while it renders.
  const session = door.open({
    features: await commandFeatures(io),
    offerConfigRoots: true,
  });
  const { server, name } = await resolveTarget(session, target, 'prompt');
  const resolved = await readArgumentSources(parseArgumentWords(rawArgs), cliArgumentSources(io));
  const args = promptArguments(resolved);
  // Rendering a prompt needs no tool definitions: no tools/list round trip.
  const connection = await session.host.connect(server, { listTools: false });
  const result = await connection.getPrompt(name, args, { signal: io.signal }).catch((error: unknown) => {
    throw explainUnanswered(error, session, 'mcpx prompt');
  });
  if (options.json) {
    io.stdout.write(toJson(result));
    return ExitCode.Ok;
  }
  if (result.description) io.stdout.write(say`# ${forTerminal(result.description)}\n\n`);
  for (const message of result.messages) {
    io.stdout.write(say`${`[${message.role}]\n${renderContentBlock(message.content)}`}\n\n`);
  }
  return ExitCode.Ok;
}
