#!/usr/bin/env node
// The public API report. API Extractor reads the declarations tsc emitted for each entry point of
// package.json's "exports" (dist/**/*.d.ts) and writes what each one makes public to
// api/<entry>.api.md. `npm run api` fails when the declarations no longer match the checked-in
// reports (an export added, removed or changed without its report saying so), and when a public
// signature names a type that no entry point exports; `npm run api -- --local` rewrites the
// reports to match. Needs a build (`npm run build`): it reads dist/, never src/.
//
// `--project DIR` checks the package in DIR (its package.json and dist/) against this
// repository's reports: how the test plants a violation in a copy.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const local = args.includes('--local');
const projectAt = args.indexOf('--project');
const project = projectAt >= 0 && args[projectAt + 1] ? args[projectAt + 1] : root;
const reportFolder = join(root, 'api');
const shown = (path) => relative(process.cwd(), path) || '.';
if (local && project !== root) {
  process.stderr.write("api: --local rewrites this repository's reports: not with --project\n");
  process.exit(2);
}

const packageJsonPath = join(project, 'package.json');
const packageJson = JSON.parse(readFileSync(packageJsonPath, 'utf8'));

/** Every entry point a user can import, with its report: '.' is mcpx.api.md, './low-level' mcpx-low-level.api.md. */
const entries = Object.entries(packageJson.exports).map(([subpath, target]) => {
  const tail = subpath === '.' ? '' : subpath.slice(1);
  return {
    specifier: `${packageJson.name}${tail}`,
    report: `${packageJson.name}${tail.replaceAll('/', '-')}`,
    types: join(project, target.types),
  };
});

const unbuilt = entries.filter((e) => !existsSync(e.types));
if (unbuilt.length > 0) {
  const list = unbuilt.map((e) => `'${e.specifier}' (${shown(e.types)})`).join(', ');
  process.stderr.write(`api: no declarations for ${list}: run \`npm run build\` first\n`);
  process.exit(2);
}

// A check of yesterday's build would pass whatever src/ says now.
const sources = join(project, 'src');
if (existsSync(sources)) {
  const newest = readdirSync(sources, { recursive: true })
    .map((file) => join(sources, file))
    .reduce((latest, file) => Math.max(latest, statSync(file).mtimeMs), 0);
  const built = Math.min(...entries.map((e) => statSync(e.types).mtimeMs));
  if (newest > built) {
    process.stderr.write('api: the declarations in dist/ are older than src/: run `npm run build` first\n');
    process.exit(2);
  }
}

// API Extractor's default rules are for a package with release tags (@public, @beta…) and strict
// TSDoc; mcpx has neither, and its JSDoc is written for people, so those rules are off. What stays
// on is what the report is for: a signature that changed, and a public signature naming a type
// that is not public.
const extractorMessageReporting = {
  default: { logLevel: 'warning', addToApiReportFile: false },
  'ae-missing-release-tag': { logLevel: 'none' },
  'ae-internal-missing-underscore': { logLevel: 'none' },
  'ae-unresolved-link': { logLevel: 'none' },
  // Every export of every entry point has a doc comment: one without fails the check. Their
  // members are not held to it (the reports mark those "(undocumented)"): see `documentable`.
  'ae-undocumented': { logLevel: 'warning', addToApiReportFile: false },
};

function configFor(entry) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: project,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2023'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
        },
      },
      apiReport: { enabled: true, reportFileName: entry.report, reportFolder, reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting,
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: packageJsonPath,
  });
}

// Where API Extractor writes the report it compares: not dist/, which is published.
const tempFolder = mkdtempSync(join(tmpdir(), 'mcpx-api-'));
process.on('exit', () => rmSync(tempFolder, { recursive: true, force: true }));
const configs = entries.map(configFor);
// One TypeScript program for every entry point: the analysis is most of the time.
const compilerState = CompilerState.create(configs[0], {
  additionalEntryPoints: entries.map((e) => e.types),
});

/** Every name some entry point exports: a type public through 'mcpx' may appear in 'mcpx/openai'. */
function publicNames() {
  const program = compilerState.program;
  const checker = program.getTypeChecker();
  return new Set(
    entries.flatMap((entry) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry.types));
      return module ? checker.getExportsOfModule(module).map((s) => s.name) : [];
    }),
  );
}
const everyPublicName = publicNames();

/**
 * Where each entry point's exports are declared (`file:line`, as API Extractor reports a
 * message): an `ae-undocumented` message elsewhere is about a member, which is not a gate.
 */
function exportDeclarations(entry) {
  const program = compilerState.program;
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry.types));
  const places = new Set();
  for (const exported of module ? checker.getExportsOfModule(module) : []) {
    // `SymbolFlags.Alias`: a re-export, whose declarations are where it is re-exported from.
    const symbol = exported.flags & 2097152 ? checker.getAliasedSymbol(exported) : exported;
    for (const declaration of symbol.declarations ?? []) {
      const file = declaration.getSourceFile();
      places.add(`${file.fileName}:${file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1}`);
    }
  }
  return places;
}

const problems = [];
for (const [index, entry] of entries.entries()) {
  const found = [];
  const documentable = exportDeclarations(entry);
  let diff;
  const result = Extractor.invoke(configs[index], {
    localBuild: local,
    compilerState,
    printApiReportDiff: !local,
    messageCallback: (message) => {
      // Nothing printed by API Extractor itself: what matters is said below, one line each.
      message.handled = true;
      if (message.messageId === 'console-api-report-diff') diff = message.text;
      if (message.category === 'console') return;
      if (
        message.messageId === 'ae-undocumented' &&
        !documentable.has(`${message.sourceFilePath}:${message.sourceFileLine}`)
      ) {
        return;
      }
      if (message.messageId === 'ae-forgotten-export') {
        const name = /"([^"]+)"/.exec(message.text)?.[1];
        if (name && everyPublicName.has(name)) return;
      }
      if (message.logLevel === 'error' || message.logLevel === 'warning') found.push(message);
    },
  });
  for (const message of found) {
    const where = message.sourceFilePath
      ? `${shown(message.sourceFilePath)}:${message.sourceFileLine}: `
      : '';
    problems.push(`${where}${message.text} (${message.messageId}, in '${entry.specifier}')`);
  }
  const report = shown(join(reportFolder, `${entry.report}.api.md`));
  if (!result.apiReportChanged) continue;
  if (local) {
    process.stdout.write(`api: updated ${report}\n`);
  } else if (!existsSync(join(reportFolder, `${entry.report}.api.md`))) {
    problems.push(`'${entry.specifier}' has no report: run \`npm run api -- --local\` and commit ${report}`);
  } else {
    problems.push(
      `the public API of '${entry.specifier}' differs from ${report}; if the change is meant, run \`npm run api -- --local\` and commit ${report}${diff ? `\n${diff.trimEnd()}` : ''}`,
    );
  }
}

if (problems.length > 0) {
  process.stderr.write(`${problems.map((p) => `api: ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`api: ${entries.length} entry points match their reports\n`);
