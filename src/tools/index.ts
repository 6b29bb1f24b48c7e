/**
 * MCP tools for agents: provider-valid names, validated arguments, permission
 * checks, typed results; tool sources and a router to mix MCP servers with the
 * host's own functions; a search mode for large tool sets; resources (an
 * opt-in tool pair) and prompts (`promptMessages`) for a model's context. The provider
 * formats live in `providers/` (`mcpx/openai`, `mcpx/anthropic`, `mcpx/ai-sdk`).
 */

export {
  forModel,
  forTerminal,
  hasHiddenCharacters,
  renderContent,
  renderContentBlock,
  revealHidden,
  stripHidden,
  stripTerminalControls,
} from '../text/index.js';
export {
  type AgentTool,
  type AgentToolSet,
  type AgentToolsOptions,
  type AgentToolWarning,
  CALL_TOOL,
  createAgentTools,
  SEARCH_THRESHOLD,
  SEARCH_TOOL,
} from './agent-tools.js';
export { callForModel } from './call-for-model.js';
export {
  type Catalogue,
  type CatalogueEntry,
  type CatalogueNaming,
  type CatalogueOptions,
  createCatalogue,
  type ListedItem,
} from './catalogue.js';
export {
  type ChatMessage,
  type ChatPart,
  type ChatPartsOptions,
  chatParts,
  describeParts,
  resourceContentBlocks,
} from './chat-parts.js';
export { CallContinues, type GuardedCallContext, guardedCall } from './guarded-call.js';
export { assignToolNames, type NamingStyle, type QualifiedTool } from './naming.js';
export {
  PROMPT_ACTION,
  type PromptMessages,
  type PromptMessagesOptions,
  promptMessages,
} from './prompt-messages.js';
export { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL, RESOURCE_ACTIONS } from './resource-tools.js';
export {
  type AgentToolResult,
  type ConvertOptions,
  convertToolResult,
  DEFAULT_MAX_TEXT_LENGTH,
  type ToolResultPart,
  truncateText,
} from './result.js';
export { type RoutedTool, ToolRouter } from './router.js';
export {
  createSkillTools,
  LOAD_SKILL_TOOL,
  READ_SKILL_FILE_TOOL,
  type SkillTools,
  type SkillToolsOptions,
  skillCatalogueText,
  taggedSkillText,
} from './skill-tools.js';
export { type SearchHit, searchTools, tokenize } from './tool-search.js';
export {
  type InProcessTool,
  inProcessToolSource,
  mcpToolSource,
  type ToolCallOptions,
  type ToolDescriptor,
  type ToolSource,
} from './tool-source.js';
export { checkAgainstSchema, formatProblems, type SchemaCheck, type SchemaProblem } from './validate.js';
