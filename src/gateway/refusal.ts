import { type NobodyApprover, nobodyApprover } from '../permissions/index.js';

/**
 * The gateway's approver: its clients are programs, so there is nobody to ask,
 * and a call the policy would put to a person is refused, saying how the person
 * running the gateway allows it.
 */
export function gatewayApprover(): NobodyApprover {
  return nobodyApprover(({ server, tool, level, because }) =>
    because
      ? `mcpx refused '${tool.name}' of '${server}': its annotations mark it ${because}, permission ` +
        `'${level}' asks a person before each such call, even with \`--allow\`, and the gateway has ` +
        `nobody to ask. To allow it, restart the gateway with \`--permission yolo\`.`
      : `mcpx refused '${tool.name}' of '${server}': permission '${level}' asks a person before ` +
        `a server is used, and the gateway has nobody to ask. To allow it, restart the gateway with ` +
        `\`--allow ${server}\` (every tool of that server) or \`--permission yolo\`, or set ` +
        `"permission": "yolo" in your mcpx config.`,
  );
}
