import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.js';

/** G10 checks a PR's .github/slopgate.yml against schemas/slopgate.schema.json, so the committed file must be the zod schema's. */
describe('schemas/slopgate.schema.json', () => {
  it('matches the zod config schema (run `npm run schema` after changing src/core/config-schema.ts)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../schemas/slopgate.schema.json', import.meta.url), 'utf8')) as unknown;
    expect(committed).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });
});
