import { type McpxError, toMcpxError } from '../../errors/index.js';
import { type ConfigText, hideLinkedContent, readConfigText } from '../read-config-text.js';
import { HOSTS } from './index.js';
import type { HostContext, HostFile, HostId, HostRead } from './types.js';

/** One host file that exists: what it holds, or why it could not be read. */
export interface FoundHostFile {
  readonly host: HostId;
  readonly file: HostFile;
  readonly read?: HostRead;
  readonly error?: McpxError;
}

/**
 * Every existing config file of `hosts`, read: a missing file is simply not
 * there; a broken one is reported in `error` so the others still count.
 */
export async function findHostFiles(hosts: readonly HostId[], ctx: HostContext): Promise<FoundHostFile[]> {
  const found: FoundHostFile[] = [];
  for (const host of hosts) {
    const dialect = HOSTS[host];
    for (const file of dialect.files(ctx)) {
      let read: ConfigText;
      try {
        read = await readConfigText(file.path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        found.push({ host, file, error: toMcpxError(error) });
        continue;
      }
      try {
        found.push({ host, file, read: dialect.read(read.text, file, ctx) });
      } catch (error) {
        const problem = toMcpxError(error);
        const { linkedTo } = read;
        found.push({
          host,
          file,
          error: linkedTo === undefined ? problem : hideLinkedContent(problem, file.path, linkedTo),
        });
      }
    }
  }
  return found;
}
