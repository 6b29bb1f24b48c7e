import { type NobodyApprover, nobodyApprover } from '../permissions/index.js';
import { forModel } from '../text/index.js';

/**
 * The gateway's approver: its clients are programs, so there is nobody to ask,
 * and a call the policy would put to a person is refused, saying how the person
 * running the gateway allows it.
 */
export function gatewayApprover(): NobodyApprover {
  return nobodyApprover(({ server, tool, level, because, kind, changes }) =>
    kind === 'changed'
      ? changedRefusal(server, tool.name, changes ?? [])
      : because
        ? `mcpx refused '${tool.name}' of '${server}': its annotations mark it ${because}, permission ` +
          `'${level}' asks a person before each such call, even with \`--allow\`, and the gateway has ` +
          `nobody to ask. To allow it, restart the gateway with \`--permission yolo\`.`
        : `mcpx refused '${tool.name}' of '${server}': permission '${level}' asks a person before ` +
          `a server is used, and the gateway has nobody to ask. To allow it, restart the gateway with ` +
          `\`--allow ${server}\` (every tool of that server) or \`--permission yolo\`, or set ` +
          `"permission": "yolo" in your mcpx config.`,
  );
}

/** A definition that changed since it was approved or let run: restarting the gateway accepts it. */
function changedRefusal(server: string, tool: string, changes: readonly string[]): string {
  return (
    `mcpx refused '${tool}' of '${server}': its definition changed since it was allowed ` +
    `(${forModel(changes.join('; '))}), and the gateway has nobody to ask whether the new one may run. ` +
    'To accept the new definition, restart the gateway.'
  );
}
