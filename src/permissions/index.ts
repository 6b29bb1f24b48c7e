export {
  type Approver,
  asksSomeone,
  type CallQuestion,
  type ChangedQuestion,
  type ConnectQuestion,
  denyingApprover,
  describeQuestion,
  type NobodyApprover,
  nobodyApprover,
  promptFailure,
  type QuestionOptions,
  scriptedApprover,
  terminalApprover,
  type UnaskedQuestion,
} from './approver.js';
export {
  type ConsentRequest,
  createPermissionGuard,
  type PermissionAnswers,
  type PermissionGuard,
  type PermissionGuardOptions,
  type VerdictRequest,
} from './guard.js';
export {
  type CallDecision,
  type ConfirmHint,
  type ConnectDecision,
  decide,
  type PermissionState,
  type PolicyRequest,
  type Verdict,
} from './policy.js';
export { profileScope } from './profile-scope.js';
export { describeToolChange, toolFingerprint } from './tool-fingerprint.js';
export type { PermissionLevel, ToolCallCheckOptions, ToolCallGuard, ToolCallRequest } from './types.js';
