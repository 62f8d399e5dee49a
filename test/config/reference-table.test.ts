import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { configReferenceMarkdown } from '../../src/config/reference-table.js';
import { configTemplate } from '../../src/cli/config-template.js';

interface Node {
  type?: string;
  properties?: Record<string, Node>;
}

function leafKeys(node: Node, prefix = ''): string[] {
  if (node.type === 'object' && node.properties) {
    return Object.entries(node.properties).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

describe('docs/configuration-reference.md', () => {
  it('is the table the schema generates (run `npm run docs:config` after changing src/core/config-schema.ts)', () => {
    expect(readFileSync('docs/configuration-reference.md', 'utf8')).toBe(configReferenceMarkdown());
  });

  it('has one row for every key of the schema, the keys `slopgate init` writes', () => {
    const keys = leafKeys(configJsonSchema() as Node);
    const table = configReferenceMarkdown();
    const rows = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(keys);
    const template = configTemplate();
    for (const key of keys) expect(template).toMatch(new RegExp(`^\\s*(# )?${key.split('.').at(-1)!}:`, 'm'));
  });
});
