import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FILES_PREFIX, TOOL_FILE_MARK } from './emit-module.js';

/** A name `assignFileNames` can give: an identifier, perhaps numbered, `.ts`; never the index. */
const GENERATED_NAME = /^[A-Za-z0-9_$]+(-[0-9]+)?\.ts$/;

/**
 * The files a `--layout tree` folder's index (`previousIndex`, as it is before generating again)
 * says `mcpx generate` wrote, that the new generation (`next`) no longer writes: the files of tools
 * that are gone, to remove. Only a name the index lists, that the generator could have given, that
 * is no new file's name in any case (a case-insensitive file system), and whose file still reads
 * as a generated tool's file: a file the user wrote there is never among them, nor one the user
 * replaced since. The index is repository text: no listed name leaves the folder.
 */
export async function staleFiles(
  folder: string,
  previousIndex: string | undefined,
  next: ReadonlyMap<string, string>,
): Promise<string[]> {
  const listed = generatedFiles(previousIndex);
  const kept = new Set([...next.keys()].map((name) => name.toLowerCase()));
  const stale: string[] = [];
  for (const name of listed) {
    if (!GENERATED_NAME.test(name) || kept.has(name.toLowerCase())) continue;
    const text = await readFile(join(folder, name), 'utf8').catch(() => undefined);
    if (text?.split('\n', 3).some((line) => line.includes(TOOL_FILE_MARK))) stale.push(name);
  }
  return stale;
}

/** The names on an index's `generatedFiles` line; none when it has no such line or it does not parse. */
function generatedFiles(index: string | undefined): string[] {
  const line = index?.split('\n').find((l) => l.startsWith(FILES_PREFIX));
  if (!line?.endsWith(');')) return [];
  try {
    const names: unknown = JSON.parse(JSON.parse(line.slice(FILES_PREFIX.length, -2)) as string);
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}
