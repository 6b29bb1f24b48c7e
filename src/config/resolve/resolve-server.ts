import { createHash } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ErrorCode, type McpxError } from '../../errors/index.js';
import { urlProblem } from '../entry/check-url.js';
import type { DraftString } from '../entry/field-readers.js';
import { fingerprintEntry } from '../entry/fingerprint.js';
import type { ServerDraft } from '../entry/normalize-server.js';
import { configProblem, fieldName } from '../parse/config-problem.js';
import type { ServerConfig } from '../types.js';
import { type EnvLookup, interpolate, variablesIn } from './interpolate.js';

/**
 * Turn a validated draft into the final `ServerConfig`: interpolate
 * `${VAR}` in command, args, env values, url, header values, cwd and the
 * `oauth` block's strings (a client secret from the environment), resolve
 * a relative cwd against the config file's directory, and check a URL that
 * only became complete after interpolation.
 *
 * Returns an error instead of throwing: a variable missing for one server
 * must not stop the others from loading.
 *
 * A disabled entry is inert: nothing is interpolated (its variables may be
 * unset on purpose) and it never fails; it keeps its strings as written.
 */
export function resolveServer(draft: ServerDraft, env: EnvLookup): ServerConfig | McpxError {
  if (!draft.base.enabled) return asWritten(draft);
  const { site } = draft;
  const failures: Array<{ at: DraftString; reason: string; variable: string }> = [];
  const missing = new Set<string>();
  const expand = (s: DraftString): string => {
    const result = interpolate(s.value, env);
    if (result.ok) return result.value;
    failures.push({ at: s, reason: result.reason, variable: result.variable });
    for (const name of result.missing) missing.add(name);
    return s.value;
  };

  const command = draft.command && expand(draft.command);
  const args = draft.args.map(expand);
  const envOut = Object.fromEntries(draft.env.map(([k, v]) => [k, expand(v)]));
  const headers = Object.fromEntries(draft.headers.map(([k, v]) => [k, expand(v)]));
  const cwdText = draft.cwd && expand(draft.cwd);
  const url = draft.url && expand(draft.url);
  const oauthStrings = draft.oauth?.map(([k, v]) => [k, expand(v)] as const);

  const first = failures[0];
  if (first) {
    const field = fieldName(site, first.at.path);
    const others = [...missing].filter((name) => name !== first.variable);
    const also = others.length ? ` (also unset: ${others.join(', ')})` : '';
    if (first.reason === 'missing') {
      return configProblem(
        site,
        first.at.path,
        `${field} uses \${${first.variable}}, which is not set${also}`,
        {
          code: ErrorCode.ConfigInterpolation,
          causes: [`the environment variable ${first.variable} is not set in the shell that runs mcpx`],
          fixes: [
            `export ${first.variable}=… before running mcpx`,
            `or give a default in ${site.doc.file}: "\${${first.variable}:-default}"`,
          ],
        },
      );
    }
    return configProblem(
      site,
      first.at.path,
      first.reason === 'unterminated'
        ? `${field} has a '\${' without a closing '}': ${first.variable}`
        : `${field} has an unsupported placeholder ${first.variable}`,
      {
        code: ErrorCode.ConfigInterpolation,
        causes: [`mcpx replaces only \${NAME} and \${NAME:-default} with environment variables`],
        fixes: [`use \${NAME} or \${NAME:-default}`, 'write $$ for a literal $'],
      },
    );
  }

  if (url && draft.url && url !== draft.url.value) {
    const problem = urlProblem(url);
    if (problem) {
      return configProblem(site, draft.url.path, `url after interpolation: ${problem}`, {
        fixes: ['check the variables used in the url'],
      });
    }
  }

  // A relative cwd means "next to this config file", wherever mcpx is run from.
  const cwd =
    cwdText === undefined
      ? undefined
      : isAbsolute(cwdText)
        ? cwdText
        : resolve(dirname(site.doc.file), cwdText);
  // Approved as written and by value: the same template pointing elsewhere is another server.
  const byValue = [draft.command, ...draft.args, draft.cwd, draft.url].filter((s) => s !== undefined);
  const variables = Object.fromEntries(
    [...new Set(byValue.flatMap((s) => variablesIn(s.value)))].map((name) => [name, valueDigest(env[name])]),
  );
  return {
    ...draft.base,
    fingerprint: fingerprintEntry({ written: draft.base.asWritten, runs: { command, args, cwd, url } }),
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
    ...(command === undefined ? {} : { command }),
    args,
    env: envOut,
    headers,
    ...(cwd === undefined ? {} : { cwd }),
    ...(url === undefined ? {} : { url }),
    ...(oauthStrings ? { oauth: { ...draft.base.oauth, ...Object.fromEntries(oauthStrings) } } : {}),
  };
}

/**
 * The entry with its strings as written, for a server that will not run
 * (switched off, here or by a later layer): shown by `mcpx list`, never started.
 */
export function asWritten(draft: ServerDraft): ServerConfig {
  const text = (s: DraftString) => s.value;
  const written = (pairs: ReadonlyArray<readonly [string, DraftString]>) =>
    Object.fromEntries(pairs.map(([k, v]) => [k, v.value]));
  const command = draft.command && text(draft.command);
  const args = draft.args.map(text);
  const cwd = draft.cwd && text(draft.cwd);
  const url = draft.url && text(draft.url);
  return {
    ...draft.base,
    fingerprint: fingerprintEntry({ written: draft.base.asWritten, runs: { command, args, cwd, url } }),
    ...(command === undefined ? {} : { command }),
    args,
    env: written(draft.env),
    headers: written(draft.headers),
    ...(cwd === undefined ? {} : { cwd }),
    ...(url === undefined ? {} : { url }),
    ...(draft.oauth ? { oauth: { ...draft.base.oauth, ...written(draft.oauth) } } : {}),
  };
}

/** Short enough to say "this changed", not to stand in for the value. */
function valueDigest(value: string | undefined): string {
  return value === undefined ? 'unset' : createHash('sha256').update(value).digest('hex').slice(0, 12);
}
