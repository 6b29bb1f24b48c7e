import { createHash } from 'node:crypto';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { canonicalJson } from '../config/loading.js';

/**
 * The sha256 (hex) of a skill's whole manifest: its URI, frontmatter and every file's URI, size
 * and digest, files in URI order. The digests cover the files' bytes, so an approval recorded
 * against this covers every file; a server that changes any file, adds one or rewords the
 * frontmatter changes it, and must be asked about again.
 */
export function skillFingerprint(skill: Skill): string {
  const files =
    skill.resources === 'dynamic'
      ? 'dynamic'
      : skill.resources
          .map((r) => ({ uri: r.uri, size: r.size, digest: r.digest }))
          .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return createHash('sha256')
    .update(canonicalJson({ uri: skill.uri, frontmatter: skill.frontmatter, files }))
    .digest('hex');
}
