import { word, type ReferenceVerdict, type Subject, type TextOf } from './reference-text.js';
import { go } from './references-go.js';
import { java } from './references-java.js';
import { js } from './references-js.js';
import { python } from './references-python.js';
import { rust } from './references-rust.js';
import type { HeadHit } from '../shared/head-search.js';

export type { Reference } from './reference-text.js';

/** Hits relevant to one name (the search covered every vanished name at once). */
export function hitsFor(hits: readonly HeadHit[], name: string): HeadHit[] {
  const re = word(name);
  return hits.filter((h) => {
    re.lastIndex = 0;
    return re.test(h.text);
  });
}

/** Classifies the head-tree mentions of one vanished definition. */
export function referencesOf(s: Subject, hits: readonly HeadHit[], textOf: TextOf): ReferenceVerdict {
  if (s.def.simpleName === 'default' && s.family === 'js') return { refs: [] };
  switch (s.family) {
    case 'python':
      return python(s, hits, textOf);
    case 'js':
      return js(s, hits, textOf);
    case 'go':
      return go(s, hits, textOf);
    case 'rust':
      return rust(s, hits, textOf);
    case 'java':
      return java(s, hits, textOf);
    default:
      return { refs: [] };
  }
}
