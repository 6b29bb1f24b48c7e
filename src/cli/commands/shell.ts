import { say } from '../../text/index.js';
import { commandFeatures, createTerminalTurns, explainUnanswered } from '../context/command-features.js';
import type { CliDoor } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { noticeHeldSettings } from '../context/held-settings.js';
import { permissionFlag, profileFlag } from '../context/permission-level.js';
import { ExitCode } from '../io/exit-codes.js';
import { retryInConsole, runShell } from '../shell/shell.js';
import { skillsShellCommand } from './skills.js';

/** The console's agent id: servers it connects without --shared are its own. */
const AGENT_ID = 'shell';

/**
 * `mcpx shell`: the interactive shell over the same session as every
 * command (config → trust → registry). Servers connect on first use and stay
 * connected until `/mcp disconnect` or the end of the session.
 */
export async function runShellCommand(
  door: CliDoor,
  options: { readonly permission?: string; readonly profile?: string } = {},
): Promise<number> {
  const { io } = door;
  if (!io.interactive || !io.terminal) {
    throw usageError(
      'mcpx shell needs a terminal (stdin and stderr)',
      'run it in a terminal; scripts use `mcpx call <server>.<tool> key=value`',
    );
  }
  // Roots, and a server's questions asked here; a progress bar gives way to them.
  const turns = createTerminalTurns((s) => io.stderr.write(s), io.signal);
  const session = door.open({
    command: 'mcpx shell',
    profile: profileFlag(options.profile, io),
    permission: permissionFlag(options.permission),
    features: await commandFeatures(io, turns),
    offerConfigRoots: true,
    // A console lives long: a server that crashes comes back on its next use.
    reconnect: 'lazy',
    retryAdvice: retryInConsole,
  });
  // The level as chat takes it; a repository's file may only lower it, and is told when it tried.
  await noticeHeldSettings(session);
  // A profile asking for more than the level in force fails here, before the console opens.
  await session.host.permissionLevel();
  const registry = await session.host.registry();
  // Asks at this terminal (the terminal Ask's approver), for the servers as the registry holds them.
  const guard = await session.host.guard();
  const names = registry.list().map((s) => s.name);
  await runShell({
    session,
    registry,
    guard,
    agentId: AGENT_ID,
    terminal: { terminal: io.terminal, ...(io.onInterrupt ? { onInterrupt: io.onInterrupt } : {}) },
    status: turns.draw,
    explain: (error) => explainUnanswered(error, session, 'mcpx shell'),
    extra: { skills: skillsShellCommand(session) },
    banner: say`mcpx shell — ${names.length} server${names.length === 1 ? '' : 's'} (${names.join(', ') || 'none'}). /help for commands, Tab completes, Ctrl-D leaves.`,
    onText: async () => {
      session.notice(
        'plain text goes to a chat model (`mcpx chat`); here, /help lists the commands and @<server> ? the tools',
      );
    },
  });
  return ExitCode.Ok;
}
