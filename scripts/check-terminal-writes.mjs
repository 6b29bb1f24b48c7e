#!/usr/bin/env node
// The terminal rule: one funnel to the terminal. `npm run check` runs it; it fails, naming the
// file and line, when a module of src/ reaches a terminal any other way than through the funnel —
// the CLI's io (`CliIo.stdout`/`stderr`, which take `SafeText` only), `text/`'s prompts and line
// editor (which draw safe text only on an opaque `Terminal`), and nothing else:
//
// - `process.stdout` / `process.stderr`: only in the module that builds the CLI's io;
// - `console`: nowhere (the library never prints; the SDK's console output is captured);
// - `@inquirer/*`, `readline`, `tty`: only in the funnel's prompt modules (and input-only readers);
// - `as SafeText` / `<SafeText>`: only in `text/safe-text.ts`, where the brand is made;
// - `CliIo.protocolOut`, stdout as a protocol's byte channel: only where a protocol is served;
// - `/dev/tty`, `/dev/stdout`, `/dev/stderr`, or `writeSync` on fd 1 or 2: nowhere;
// - the symbol a `Terminal` keeps its streams under: only in `text/terminal.ts`.
//
// Every exception is on an allow-list below with its reason. Protocol bytes are not terminal text:
// the stdio gateway writes JSON-RPC to a stream handed to it (`protocolOut`), never to
// `process.stdout`, and the shipped test servers (src/testing/) are programs of their own whose
// stdout is JSON-RPC and whose stderr mcpx reads as untrusted text.
//
// `node scripts/check-terminal-writes.mjs [ROOT]` checks ROOT/src (default: this repository);
// test/unit/terminal-rule.test.ts plants each kind of violation in a copy and sees it reported.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Per rule: path (a file, or a folder ending in `/`) → why it may. */
const ALLOWED = {
  process: {
    'src/cli/io/process-io.ts': "builds the CLI's io: safe-text writers, the opaque Terminal, protocolOut",
    'src/cli/main.ts': 'answers --version (a constant) before anything, the io included, is loaded',
    'src/testing/': 'the shipped test servers: stdout is their JSON-RPC, stderr is read by mcpx as untrusted',
  },
  console: {
    'src/transport/sdk-diagnostics.ts':
      "captures the SDK's console output per server; outside mcpx's scope a host program's own calls pass",
  },
  module: {
    'src/text/prompts.ts': "the funnel's prompts: messages, choices and defaults are SafeText",
    'src/text/line-editor.ts': "the funnel's line editor: its prompt and completions are SafeText",
    'src/cli/io/process-io.ts': 'isatty() only: whether stdin is a terminal',
    'src/cli/commands/auth.ts': 'reads a pasted URL from stdin (no output: input only)',
    'src/cli/commands/chat.ts': 'reads piped lines from stdin (no output: input only)',
    'src/daemon/serve-run.ts': "reads a light caller's lines from its socket (not a terminal)",
  },
  cast: {
    'src/text/safe-text.ts': 'where the brand is made (`vouched`), for the sanitiser and its kin',
  },
  protocol: {
    'src/cli/io/io.ts': 'declares it',
    'src/cli/io/process-io.ts': 'hands process.stdout over as it',
    'src/cli/daemon-handoff/daemon-run.ts': "hands a thin serve's socket over as it",
    'src/cli/commands/serve.ts': "the stdio gateway's JSON-RPC",
    'src/cli/daemon-handoff/thin-bridge.ts': "the daemon's MCP lines, piped to the client",
  },
  device: {},
  streams: {
    'src/text/terminal.ts': "where a Terminal keeps its streams, for the funnel's prompts",
  },
};

const MESSAGES = {
  process:
    'writes to the terminal past the funnel: write through CliIo.stdout/stderr (SafeText), or draw on a Terminal',
  console:
    'console prints past the funnel: the library never prints; the CLI writes through CliIo (SafeText)',
  module:
    "reaches the terminal past the funnel: ask through text/'s prompts (select, confirm, input, …) or its line editor",
  cast: "makes SafeText by a cast: use forTerminal, say, jsonText or redrawLine (text/'s makers)",
  protocol: "uses stdout's protocol channel: it carries a protocol's bytes, never a person's text",
  device: 'opens the terminal past the funnel: write through CliIo.stdout/stderr (SafeText)',
  streams: "takes a Terminal's streams: draw through Terminal.write or text/'s prompts",
};

const TERMINAL_MODULES = /^(?:node:)?(?:readline(?:\/promises)?|tty)$|^@inquirer\//;
const DEVICES = /^\/dev\/(?:tty|stdout|stderr)$|^\/proc\/self\/fd\/[12]$/;

function allowed(rule, file) {
  return Object.keys(ALLOWED[rule]).some((path) =>
    path.endsWith('/') ? file.startsWith(path) : file === path,
  );
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(?:ts|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The violations in one file's text: `{ rule, line, column, text }`. */
export function violationsIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const report = (rule, node) => {
    if (allowed(rule, file)) return;
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ rule, line: line + 1, column: character + 1, text: node.getText(source).split('\n')[0] });
  };
  const moduleName = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return node.moduleSpecifier;
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      return node.moduleReference.expression;
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (isImport || isRequire) return node.arguments[0];
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) return node.argument.literal;
    return undefined;
  };
  const visit = (node) => {
    // process.stdout, process['stderr'], and `const { stdout } = process`
    if (
      (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'process'
    ) {
      const name = ts.isPropertyAccessExpression(node)
        ? node.name.text
        : ts.isStringLiteralLike(node.argumentExpression)
          ? node.argumentExpression.text
          : '';
      if (name === 'stdout' || name === 'stderr') report('process', node);
    }
    if (
      ts.isVariableDeclaration(node) &&
      ts.isObjectBindingPattern(node.name) &&
      node.initializer &&
      ts.isIdentifier(node.initializer) &&
      node.initializer.text === 'process' &&
      node.name.elements.some((e) => /^std(?:out|err)$/.test((e.propertyName ?? e.name).getText(source)))
    )
      report('process', node);
    // Any use of the global console (a call, a method taken, a reassignment).
    if (ts.isIdentifier(node) && node.text === 'console') {
      const parent = node.parent;
      const isMemberName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        ts.isPropertySignature(parent) ||
        ts.isMethodDeclaration(parent);
      if (!isMemberName) report('console', node);
    }
    const specifier = moduleName(node);
    if (specifier && ts.isStringLiteralLike(specifier) && TERMINAL_MODULES.test(specifier.text))
      report('module', node);
    // `x as SafeText`, `<SafeText>x`
    if (
      (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
      ts.isTypeReferenceNode(node.type) &&
      node.type.typeName.getText(source) === 'SafeText'
    )
      report('cast', node);
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'protocolOut') report('protocol', node);
    if (ts.isPropertySignature(node) && node.name.getText(source) === 'protocolOut') report('protocol', node);
    if (ts.isStringLiteralLike(node) && DEVICES.test(node.text)) report('device', node);
    if (ts.isStringLiteralLike(node) && node.text === 'mcpx.terminal.streams') report('streams', node);
    if (
      ts.isCallExpression(node) &&
      /(?:^|\.)writeSync$/.test(node.expression.getText(source)) &&
      node.arguments[0] &&
      ts.isNumericLiteral(node.arguments[0]) &&
      (node.arguments[0].text === '1' || node.arguments[0].text === '2')
    )
      report('device', node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every violation under `root`/src, each `{ file, rule, line, column, text, message }`. */
export function checkTerminalWrites(root) {
  const violations = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split(sep).join('/');
    for (const v of violationsIn(file, readFileSync(path, 'utf8')))
      violations.push({ file, ...v, message: MESSAGES[v.rule] });
  }
  return violations;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const violations = checkTerminalWrites(root);
  for (const v of violations)
    process.stderr.write(`${v.file}:${v.line}:${v.column}  ${v.rule}: ${v.text}\n    ${v.message}\n`);
  if (violations.length) {
    process.stderr.write(
      `\nterminal rule: ${violations.length} way${violations.length === 1 ? '' : 's'} to the terminal past the funnel ` +
        '(scripts/check-terminal-writes.mjs; an exception needs an entry in ALLOWED with its reason)\n',
    );
    process.exit(1);
  }
}
