import { describe, expect, it } from 'vitest';
import { Callers } from '../../../src/gateway/callers.js';
import { namespacedNames, transparentNames } from '../../../src/gateway/namespace.js';
import { Paginator } from '../../../src/gateway/paginate.js';

describe('namespacedNames', () => {
  const ns = namespacedNames(() => ['a', 'a__b', 'my server']);

  it('maps URIs and templates reversibly, and only for served servers', () => {
    const uri = ns.uri('my server', 'file:///tmp/a b?x=1#y');
    expect(uri).toBe('mcpx://my%20server/file:///tmp/a b?x=1#y');
    expect(ns.parseUri(uri)).toEqual({ server: 'my server', name: 'file:///tmp/a b?x=1#y' });
    expect(ns.uri('a', 'test://users/{id}')).toBe('mcpx://a/test://users/{id}');
    expect(ns.parseUri('mcpx://nobody/test://x')).toBeUndefined();
    expect(ns.parseUri('test://x')).toBeUndefined();
    expect(ns.parseUri('mcpx://%E0%A4%A/x')).toBeUndefined();
  });

  it('names the servers an unlisted name may belong to: its prefix, else every one', () => {
    expect(ns.candidates('a__b__c')).toEqual(['a', 'a__b']);
    expect(ns.candidates('my server__echo')).toEqual(['my server']);
    expect(ns.candidates('x_3f2a9c_hashed')).toEqual(['a', 'a__b', 'my server']);
  });

  it('transparent URIs change nothing', () => {
    const t = transparentNames('one');
    expect(t.uri('one', 'test://x')).toBe('test://x');
    expect(t.parseUri('test://x')).toEqual({ server: 'one', name: 'test://x' });
    expect(t.candidates('echo')).toEqual(['one']);
  });
});

describe('Paginator', () => {
  const items = Array.from({ length: 7 }, (_, i) => i);

  it('walks every item once, from the snapshot of the first page even when the list changes', () => {
    const pages = new Paginator(3);
    const seen: number[] = [];
    let cursor: string | undefined;
    let current: number[] = items;
    do {
      const page = pages.page('tools', current, cursor);
      seen.push(...page.items);
      cursor = page.nextCursor;
      current = [-1, ...current]; // a server came up at the front while the client paged
    } while (cursor);
    expect(seen).toEqual(items);
  });

  it("refuses another list's cursor or garbage with -32602", () => {
    const pages = new Paginator(3);
    const { nextCursor } = pages.page('tools', items, undefined);
    expect(() => pages.page('prompts', items, nextCursor)).toThrow(/invalid cursor/);
    expect(() => pages.page('tools', items, 'garbage')).toThrow(/invalid cursor/);
  });
});

describe('Callers', () => {
  it("names the calling client only while that client's calls are the only ones on the server", () => {
    const callers = new Callers<string>();
    const endA = callers.begin('fs', 'client-a', 'call-a');
    expect(callers.soleCaller('fs')).toBe('call-a');
    expect(callers.soleCaller('other')).toBeUndefined();
    const endB = callers.begin('fs', 'client-b', 'call-b');
    expect(callers.soleCaller('fs')).toBeUndefined();
    expect(callers.size).toBe(2);
    endA();
    expect(callers.soleCaller('fs')).toBe('call-b');
    endB();
    expect(callers.size).toBe(0);
  });
});
