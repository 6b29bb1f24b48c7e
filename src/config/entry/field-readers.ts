import { splitCommandLine } from '../command-line/split-command-line.js';
import type { ProblemOptions, ProblemSite } from '../parse/config-problem.js';
import type { JsonPath } from '../parse/json-path.js';
import { suggest } from '../parse/suggest.js';

/** A string that may still hold `${VAR}` placeholders, with where it was written. */
export interface DraftString {
  readonly value: string;
  readonly path: JsonPath;
}

/** A key as found in an entry, after mapping its spelling to a meaning. */
export interface Given {
  readonly key: string;
  readonly value: unknown;
  readonly path: JsonPath;
}

export type WrongType = (
  g: Given | { path: JsonPath; value: unknown },
  expected: string,
  fixes?: string[],
) => void;
export type Fail = (at: JsonPath, text: string, options?: ProblemOptions) => void;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Typed readers for each kind of server field. Each reports its own problem
 * (expected vs received, with a fix where one is obvious) and returns
 * `undefined`, so one entry's problems are all collected in one pass.
 * Long because it is a table of typed readers, one per field kind, sharing the two reporters.
 */
export function createReaders(wrongType: WrongType, fail: Fail) {
  return {
    strings(g: Given | undefined): DraftString[] | undefined {
      if (!g) return undefined;
      if (typeof g.value === 'string') {
        const words = safeSplit(g.value);
        wrongType(g, 'array of strings', [
          words ? `write it as an array: ${JSON.stringify(words)}` : 'write it as an array of strings',
        ]);
        return undefined;
      }
      if (!Array.isArray(g.value)) {
        wrongType(g, 'array of strings');
        return undefined;
      }
      const out: DraftString[] = [];
      let ok = true;
      g.value.forEach((item, i) => {
        const at = [...g.path, i];
        if (typeof item === 'string') out.push({ value: item, path: at });
        else {
          ok = false;
          wrongType({ path: at, value: item }, 'string', [
            typeof item === 'number' || typeof item === 'boolean'
              ? `quote it: "${String(item)}"`
              : 'use a string',
          ]);
        }
      });
      return ok ? out : undefined;
    },
    record(g: Given | undefined, isEnv: boolean): Array<readonly [string, DraftString]> | undefined {
      if (!g) return undefined;
      if (!isRecord(g.value)) {
        wrongType(
          g,
          isEnv
            ? 'object of strings, e.g. {"API_KEY": "…"}'
            : 'object of strings, e.g. {"Authorization": "Bearer …"}',
        );
        return undefined;
      }
      const out: Array<readonly [string, DraftString]> = [];
      for (const [key, item] of Object.entries(g.value)) {
        const at = [...g.path, key];
        if (isEnv && (key === '' || key.includes('='))) {
          fail(at, `${fieldLabelFrom(at, g)}: an environment variable name cannot be empty or contain '='`, {
            target: 'key',
          });
        } else if (typeof item === 'string') {
          out.push([key, { value: item, path: at }]);
        } else {
          wrongType({ path: at, value: item }, 'string', [
            typeof item === 'number' || typeof item === 'boolean'
              ? `quote the value: "${key}": "${String(item)}"`
              : `give "${key}" a string value`,
          ]);
        }
      }
      return out;
    },
    nonEmptyString(g: Given | undefined): DraftString | undefined {
      if (!g) return undefined;
      if (typeof g.value !== 'string' || g.value.trim() === '') {
        wrongType(g, 'non-empty string');
        return undefined;
      }
      return { value: g.value, path: g.path };
    },
    boolean(g: Given | undefined): boolean | undefined {
      if (!g) return undefined;
      if (typeof g.value === 'boolean') return g.value;
      wrongType(
        g,
        'boolean (true or false)',
        g.value === 'true' || g.value === 'false' ? [`write ${g.value} without quotes`] : undefined,
      );
      return undefined;
    },
    /** Seconds in the file, milliseconds in ServerConfig. */
    seconds(g: Given | undefined, zeroAllowed: boolean): number | undefined {
      if (!g) return undefined;
      const v = g.value;
      if (typeof v === 'number' && Number.isFinite(v) && (zeroAllowed ? v >= 0 : v > 0))
        return Math.round(v * 1000);
      wrongType(
        g,
        zeroAllowed ? 'number of seconds (0 or more)' : 'number of seconds (more than 0)',
        typeof v === 'string' && Number.isFinite(Number(v)) ? [`write ${v} without quotes`] : undefined,
      );
      return undefined;
    },
    integer(g: Given | undefined, min: number): number | undefined {
      if (!g) return undefined;
      if (typeof g.value === 'number' && Number.isInteger(g.value) && g.value >= min) return g.value;
      wrongType(g, `whole number (${min} or more)`);
      return undefined;
    },
    object(g: Given | undefined): Readonly<Record<string, unknown>> | undefined {
      if (!g) return undefined;
      if (isRecord(g.value)) return g.value;
      wrongType(g, 'object');
      return undefined;
    },
    enumValue<T extends string>(
      g: Given | undefined,
      values: Readonly<Record<string, T>>,
      accepted: string,
    ): T | undefined {
      if (!g) return undefined;
      const folded = typeof g.value === 'string' ? g.value.toLowerCase().replace(/[-_]/g, '') : undefined;
      const found = folded !== undefined && Object.hasOwn(values, folded) ? values[folded] : undefined;
      if (found) return found;
      const guess = typeof g.value === 'string' ? suggest(g.value, Object.keys(values)) : undefined;
      wrongType(g, accepted, guess ? [`did you mean "${guess}"?`] : undefined);
      return undefined;
    },
  };
}

/** A field as named in messages, relative to its server entry: `args[1]`, `env.PORT`. */
export function fieldLabel(site: ProblemSite, path: JsonPath): string {
  const base = site.serverPath ?? [];
  return path.length > base.length ? labelOf(path.slice(base.length)) : 'entry';
}

function fieldLabelFrom(at: JsonPath, g: Given): string {
  return labelOf([g.key, ...at.slice(g.path.length)]);
}

function labelOf(path: JsonPath): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function safeSplit(text: string): string[] | undefined {
  try {
    return splitCommandLine(text);
  } catch {
    return undefined;
  }
}
