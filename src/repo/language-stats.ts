import { posix } from 'node:path';

const BY_EXTENSION: Record<string, string> = {
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  scala: 'scala',
  rb: 'ruby',
  php: 'php',
  cs: 'csharp',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  m: 'objective-c',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  lua: 'lua',
  dart: 'dart',
  ex: 'elixir',
  exs: 'elixir',
  erl: 'erlang',
  hs: 'haskell',
  ml: 'ocaml',
  r: 'r',
  jl: 'julia',
  zig: 'zig',
  nim: 'nim',
  vue: 'vue',
  svelte: 'svelte',
  astro: 'astro',
};

/** The language of a path by extension (lower-case id), or null for docs, configs and data. */
export function languageByExtension(path: string): string | null {
  const base = posix.basename(path);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return null;
  return BY_EXTENSION[base.slice(dot + 1).toLowerCase()] ?? null;
}

/** File counts per language. */
export function countLanguages(paths: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of paths) {
    const lang = languageByExtension(p);
    if (lang) counts[lang] = (counts[lang] ?? 0) + 1;
  }
  return counts;
}
