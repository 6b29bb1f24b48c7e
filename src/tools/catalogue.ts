import { assignToolNames, type NamingStyle } from './naming.js';

/**
 * How a catalogue names what it lists: one of the tools layer's styles (`mcp_<server>_<tool>`,
 * `<server>.<tool>`, `<server>__<tool>`), or `transparent`: every name as its server gave it,
 * for one server re-served unchanged.
 */
export type CatalogueNaming = NamingStyle | 'transparent';

/** One item (a tool, a prompt) as a server listed it. */
export interface ListedItem<T> {
  /** The server (or tool source) that listed it. */
  readonly server: string;
  /** As the server gave it. */
  readonly item: T;
}

/** One item of a catalogue: its public name, where it lives, and the item as its server gave it. */
export interface CatalogueEntry<T> {
  /** Unique in the catalogue; what a client, a model or a person calls it by. */
  readonly name: string;
  /** The server it lives on. */
  readonly server: string;
  /** As the server gave it (its own `name` included): unsanitized, for routing and fingerprints. */
  readonly item: T;
}

/** How {@link createCatalogue} names items, and which it leaves out. */
export interface CatalogueOptions {
  /** Default `prefixed`. */
  readonly naming?: CatalogueNaming;
  /**
   * What the policy offers (`guard.offers`): an item it refuses is neither listed nor
   * resolvable, and takes no part in naming the others. Default: everything.
   */
  readonly offers?: (server: string, name: string) => boolean;
}

/** Many servers' items under one set of public names. */
export interface Catalogue<T> {
  /** Every offered item, in the order listed. */
  readonly entries: readonly CatalogueEntry<T>[];
  /** The public names, in the order listed. */
  readonly names: readonly string[];
  /** The entry behind a public name, or undefined if nothing offered goes by it. */
  resolve(publicName: string): CatalogueEntry<T> | undefined;
}

/**
 * One catalogue from what each server lists now: the items the policy offers, each under
 * a public name, deterministic for the same input. Collisions and the 64-character bound are
 * settled by {@link assignToolNames} (so `a` + `b__c` and `a__b` + `c` get distinct hashed
 * names); `transparent` keeps every name (of two items with one name, the later stands, in the
 * earlier's place).
 *
 * @example
 * const catalogue = createCatalogue(
 *   [{ server: 'fs', item: { name: 'read_file' } }],
 *   { naming: 'namespaced', offers: guard.offers },
 * );
 * catalogue.resolve('fs__read_file'); // { name: 'fs__read_file', server: 'fs', item: { name: 'read_file' } }
 */
export function createCatalogue<T extends { readonly name: string }>(
  listed: readonly ListedItem<T>[],
  options: CatalogueOptions = {},
): Catalogue<T> {
  const { naming = 'prefixed', offers } = options;
  const offered = offers ? listed.filter((l) => offers(l.server, l.item.name)) : listed;
  const byName = new Map<string, CatalogueEntry<T>>();
  if (naming === 'transparent') {
    for (const { server, item } of offered) byName.set(item.name, { name: item.name, server, item });
  } else {
    // One distinct name per item, in the order given: the i-th name is the i-th item's.
    const names = assignToolNames(
      offered.map((l) => ({ source: l.server, tool: l.item.name })),
      naming,
    ).keys();
    for (const { server, item } of offered) {
      const name = names.next().value as string;
      byName.set(name, { name, server, item });
    }
  }
  const entries = [...byName.values()];
  return {
    entries,
    names: entries.map((e) => e.name),
    resolve: (publicName) => byName.get(publicName),
  };
}
