/**
 * Where a JSON text goes wrong. Node 20's `JSON.parse` errors name no position (and quote the
 * whole input); a person fixing a quoted argument needs the place: "unexpected 'x' at
 * position 7". A minimal RFC 8259 scanner, run only after `JSON.parse` has failed.
 * Long because it is one recursive-descent scanner whose parse steps share the cursor as closures.
 */
export function describeJsonError(text: string): string {
  let i = 0;
  const fail = (expected: string): never => {
    const found = i >= text.length ? 'the end' : `'${text[i]}'`;
    throw new JsonSyntax(`expected ${expected} but found ${found} at position ${i}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const literal = (word: string) => {
    for (const c of word) {
      if (text[i] !== c) fail(`'${word}'`);
      i++;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail('a character that is not a control character in a string');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('four hex digits after \\u');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x') || i >= text.length) fail('an escape character');
      }
      i++;
    }
    if (i >= text.length) fail("a closing '\"'");
    i++;
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail('a number');
    i += (match as RegExpExecArray)[0].length;
  };
  const value = (depth: number): void => {
    space();
    const c = text[i];
    if (depth > 512) fail('less nesting');
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('a key in double quotes');
        string();
        space();
        if (text[i] !== ':') fail("':'");
        i++;
        value(depth + 1);
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail("',' or '}'");
      }
    } else if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail("',' or ']'");
      }
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else fail('a value');
  };
  try {
    value(0);
    space();
    if (i < text.length) fail('the end');
    return 'invalid JSON';
  } catch (error) {
    if (error instanceof JsonSyntax) return error.message;
    throw error;
  }
}

class JsonSyntax extends Error {}
