/**
 * Skills (SEP-2640) under mcpx's host rules, over each connection's SDK `SkillsClient`: the
 * manifest only at listing, every file verified on read, names per server, the manifest's
 * fingerprint for approvals. The host serves it as `host.skills()`.
 */
export { createHostSkills, type HostSkillsDeps, listConnectionSkills } from './host-skills.js';
export { SKILL_ACTION_PREFIX, skillAction } from './skill-action.js';
export { skillFingerprint } from './skill-fingerprint.js';
export type {
  HostSkills,
  ListedSkill,
  LoadedSkill,
  RefusedSkillEntry,
  SkillFileContent,
  SkillFileEntry,
  SkillsListing,
  SkillsRequestOptions,
} from './types.js';
