#!/usr/bin/env node
// The size rule: rooms sized to their job. `npm run check` runs it; it fails, naming the file and
// line, when a module of src/ is over MAX_FILE_LINES lines, or a function (a declaration, a method,
// an accessor, a constructor, a function expression or an arrow function) is over
// MAX_FUNCTION_LINES lines without saying why: a comment directly above it that starts with
// `// Long because`, or a JSDoc (or block comment) above it containing "Long because". For an arrow
// function or function expression, "above it" is above the declaration, property or statement that
// holds it (`// Long because …` over `const run = async () => {`, or over
// `return new Promise((done) => {`).
//
// `node scripts/check-sizes.mjs [ROOT]` checks ROOT/src (default: this repository);
// test/unit/size-rule.test.ts runs it on planted fixtures and on the real tree.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 800;
export const MAX_FUNCTION_LINES = 100;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(?:ts|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node)
  );
}

// The nodes that may carry the comment of a function they hold, climbing from the function.
const HOLDERS = new Set([
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.VariableDeclarationList,
  ts.SyntaxKind.VariableStatement,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.PropertyDeclaration,
  ts.SyntaxKind.ExportAssignment,
  ts.SyntaxKind.ParenthesizedExpression,
  ts.SyntaxKind.AsExpression,
  ts.SyntaxKind.SatisfiesExpression,
  ts.SyntaxKind.BinaryExpression,
  ts.SyntaxKind.ExpressionStatement,
  ts.SyntaxKind.CallExpression,
  ts.SyntaxKind.NewExpression,
  ts.SyntaxKind.AwaitExpression,
  ts.SyntaxKind.ReturnStatement,
]);

/** Whether a comment directly above the function (or what holds it) says why it is long. */
function saysWhy(node, text) {
  for (let at = node; at; at = at.parent) {
    const comments = ts.getLeadingCommentRanges(text, at.getFullStart()) ?? [];
    for (const range of comments) {
      const comment = text.slice(range.pos, range.end);
      if (range.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
        if (/^\/\/\s*Long because\b/.test(comment)) return true;
      } else if (comment.includes('Long because')) return true;
    }
    if (!at.parent || !HOLDERS.has(at.parent.kind)) return false;
  }
  return false;
}

function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(source);
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** The violations in one file's text: `{ line, name, lines, kind: 'file' | 'function' }`. */
export function violationsIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const fileLines =
    source.getLineAndCharacterOfPosition(source.getEnd()).line + (text.endsWith('\n') ? 0 : 1);
  if (fileLines > MAX_FILE_LINES) found.push({ kind: 'file', line: 1, name: file, lines: fileLines });
  const visit = (node) => {
    if (isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES && !saysWhy(node, text))
        found.push({ kind: 'function', line: first + 1, name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every violation under `root`/src, each `{ file, kind, line, name, lines, message }`. */
export function checkSizes(root) {
  const violations = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split(sep).join('/');
    for (const v of violationsIn(file, readFileSync(path, 'utf8')))
      violations.push({
        file,
        ...v,
        message:
          v.kind === 'file'
            ? `${v.lines} lines, over ${MAX_FILE_LINES}: split it into modules named for what they do`
            : `${v.name} is ${v.lines} lines, over ${MAX_FUNCTION_LINES}: split it into named pieces, or say why above it (// Long because …)`,
      });
  }
  return violations;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const violations = checkSizes(root);
  for (const v of violations) process.stderr.write(`${v.file}:${v.line}  ${v.kind}: ${v.message}\n`);
  if (violations.length) {
    process.stderr.write(
      `\nsize rule: ${violations.length} room${violations.length === 1 ? '' : 's'} too large (scripts/check-sizes.mjs)\n`,
    );
    process.exit(1);
  }
}
