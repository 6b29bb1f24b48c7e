import { type McpxError, toMcpxError } from '../../errors/index.js';
import { type ConfigText, hideLinkedContent, readConfigText } from '../parse/read-config-text.js';
import { CLIENT_APPS } from './index.js';
import type { ClientAppContext, ClientAppFile, ClientAppId, ClientAppRead } from './types.js';

/** One client app file that exists: what it holds, or why it could not be read. */
export interface FoundClientAppFile {
  readonly app: ClientAppId;
  readonly file: ClientAppFile;
  readonly read?: ClientAppRead;
  readonly error?: McpxError;
}

/**
 * Every existing config file of `client apps`, read: a missing file is simply not
 * there; a broken one is reported in `error` so the others still count.
 */
export async function findClientAppFiles(
  apps: readonly ClientAppId[],
  ctx: ClientAppContext,
): Promise<FoundClientAppFile[]> {
  const found: FoundClientAppFile[] = [];
  for (const app of apps) {
    const dialect = CLIENT_APPS[app];
    for (const file of dialect.files(ctx)) {
      let read: ConfigText;
      try {
        read = await readConfigText(file.path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        found.push({ app, file, error: toMcpxError(error) });
        continue;
      }
      try {
        found.push({ app, file, read: dialect.read(read.text, file, ctx) });
      } catch (error) {
        const problem = toMcpxError(error);
        const { linkedTo } = read;
        found.push({
          app,
          file,
          error: linkedTo === undefined ? problem : hideLinkedContent(problem, file.path, linkedTo),
        });
      }
    }
  }
  return found;
}
