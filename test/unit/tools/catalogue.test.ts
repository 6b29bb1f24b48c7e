import type { Prompt } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createCatalogue, type ListedItem } from '../../../src/tools/index.js';

const tool = (name: string, description = '') => ({ name, description });
const listing = (server: string, ...names: string[]): ListedItem<{ name: string; description: string }>[] =>
  names.map((name) => ({ server, item: tool(name, `${server}'s ${name}`) }));

describe('createCatalogue', () => {
  it('keeps a + b__c and a__b + c distinct (namespaced), and each name resolves to its item', () => {
    const catalogue = createCatalogue([...listing('a', 'b__c', 'echo'), ...listing('a__b', 'c')], {
      naming: 'namespaced',
    });
    expect(catalogue.entries).toHaveLength(3);
    expect(catalogue.resolve('a__echo')).toEqual({
      name: 'a__echo',
      server: 'a',
      item: { name: 'echo', description: "a's echo" },
    });
    const clashing = catalogue.names.filter((n) => n.startsWith('a__b__c'));
    expect(clashing).toHaveLength(2);
    for (const name of clashing) expect(name).toMatch(/^a__b__c_[0-9a-f]{6}$/);
    expect(
      clashing.map((n) => `${catalogue.resolve(n)?.server}/${catalogue.resolve(n)?.item.name}`).sort(),
    ).toEqual(['a/b__c', 'a__b/c']);
  });

  it('names collisions across servers the same way in every style, within 64 characters', () => {
    const listed = [...listing('git', 'hub_search'), ...listing('git_hub', 'search'), ...listing('x', 'y')];
    const prefixed = createCatalogue(listed);
    expect(prefixed.resolve('mcp_x_y')?.item.name).toBe('y');
    expect(prefixed.names.filter((n) => n.startsWith('mcp_git_hub_search_'))).toHaveLength(2);
    const dotted = createCatalogue(listed, { naming: 'dotted' });
    expect(dotted.names).toEqual(['git.hub_search', 'git_hub.search', 'x.y']);
    const long = createCatalogue(listing('s'.repeat(60), 't'.repeat(60)), { naming: 'namespaced' });
    expect(long.names[0]?.length).toBe(64);
    expect(long.resolve(long.names[0] as string)?.item.name).toBe('t'.repeat(60));
  });

  it('is deterministic for the same input, whatever the order of the servers', () => {
    const a = [...listing('a', 'b__c'), ...listing('a__b', 'c')];
    const one = createCatalogue(a, { naming: 'namespaced' });
    const other = createCatalogue([...a].reverse(), { naming: 'namespaced' });
    expect(new Set(one.names)).toEqual(new Set(other.names));
    for (const name of one.names) expect(other.resolve(name)).toEqual(one.resolve(name));
  });

  it('leaves out what the policy does not offer: not listed, not resolvable, no part in naming', () => {
    const offers = (server: string, name: string) => !(server === 'a__b' && name === 'c');
    const catalogue = createCatalogue([...listing('a', 'b__c'), ...listing('a__b', 'c')], {
      naming: 'namespaced',
      offers,
    });
    // Without its twin, a's tool keeps its plain name.
    expect(catalogue.names).toEqual(['a__b__c']);
    expect(catalogue.resolve('a__b__c')?.server).toBe('a');
    const all = createCatalogue([...listing('a', 'b__c'), ...listing('a__b', 'c')], { naming: 'namespaced' });
    for (const name of all.names) if (name !== 'a__b__c') expect(catalogue.resolve(name)).toBeUndefined();
  });

  it('gives an item listed twice two names, each resolving to its own listing', () => {
    const first = { name: 'echo', description: 'first' };
    const second = { name: 'echo', description: 'second' };
    const catalogue = createCatalogue(
      [
        { server: 's', item: first },
        { server: 's', item: second },
      ],
      { naming: 'namespaced' },
    );
    expect(catalogue.names).toHaveLength(2);
    expect(catalogue.names.map((n) => catalogue.resolve(n)?.item)).toEqual([first, second]);
  });

  it('transparent naming keeps every name as the server gave it', () => {
    const catalogue = createCatalogue(listing('one', 'echo', 'add'), { naming: 'transparent' });
    expect(catalogue.names).toEqual(['echo', 'add']);
    expect(catalogue.resolve('echo')).toEqual({
      name: 'echo',
      server: 'one',
      item: tool('echo', "one's echo"),
    });
    expect(catalogue.resolve('one__echo')).toBeUndefined();
  });

  it('names prompts as it names tools, keeping each item whole', () => {
    const prompts: ListedItem<Prompt>[] = [
      { server: 'a', item: { name: 'b__c', arguments: [{ name: 'x', required: true }] } },
      { server: 'a__b', item: { name: 'c', description: 'twin' } },
    ];
    const catalogue = createCatalogue(prompts, { naming: 'namespaced' });
    const tools = createCatalogue(
      prompts.map((p) => ({ server: p.server, item: { name: p.item.name } })),
      { naming: 'namespaced' },
    );
    expect(catalogue.names).toEqual(tools.names);
    const twin = catalogue.entries.find((e) => e.server === 'a__b');
    expect(twin?.item).toEqual({ name: 'c', description: 'twin' });
  });
});
