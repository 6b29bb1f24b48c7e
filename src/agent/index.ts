/**
 * The chat agent: an OpenAI-compatible chat model, the tool loop, the
 * conversation's context messages, and a server's sampling answered by the model.
 */
export { type AgentEvent, type AgentTurnOptions, continueAgentTurn, runAgentTurn } from './agent-loop.js';
export { toChatCompletionMessages } from './chat-messages.js';
export {
  type ChatModel,
  DEFAULT_BASE_URL,
  type OpenAICompatibleOptions,
  openAICompatibleModel,
} from './chat-model.js';
export {
  type ModelSamplingOptions,
  modelSampling,
  type SamplingQuestion,
  samplingExtras,
} from './sampling.js';
