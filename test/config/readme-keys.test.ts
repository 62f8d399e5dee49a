import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.js';

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

describe('README', () => {
  it('documents every config key', () => {
    const readme = readFileSync('README.md', 'utf8');
    const keys = leafKeys(configJsonSchema() as Node);
    expect(keys.length).toBeGreaterThan(30);
    const missing = keys.filter((k) => !readme.includes(`\`${k}\``));
    expect(missing).toEqual([]);
  });

  it('names every registered guard', async () => {
    const { GUARDS } = await import('../../src/guards/index.js');
    const readme = readFileSync('README.md', 'utf8');
    const missing = GUARDS.map((g) => g.id).filter((id) => !readme.includes(`**${id === 'psi' ? 'Ψ' : id}**`));
    expect(missing).toEqual([]);
  });
});
