/**
 * The frameworks G11 recognises in prose (the 42 ids of the original's table), written the way
 * their own docs spell them. Matching is case-sensitive, so "react to", "next section", "express
 * delivery" or "click the button" never match.
 *
 * `strong` spellings always count. `bare` spellings are also ordinary English words (Next, Click,
 * Express …): they only count in a framework context (see framework-claims.ts).
 */
export interface FrameworkPattern {
  id: string;
  /** Human name for messages. */
  name: string;
  strong: string[];
  bare?: string[];
  /** Also an English verb: "React to …" / "React quickly" at the start of a sentence is not a claim. */
  verb?: boolean;
}

export const FRAMEWORK_PATTERNS: FrameworkPattern[] = [
  { id: 'react', name: 'React', strong: ['React', 'ReactJS', 'React.js', 'React Native'], verb: true },
  { id: 'vue', name: 'Vue', strong: ['Vue', 'VueJS', 'Vue.js', 'Vue 3', 'Vue 2'] },
  { id: 'angular', name: 'Angular', strong: ['Angular', 'AngularJS'] },
  { id: 'svelte', name: 'Svelte', strong: ['Svelte', 'SvelteKit'] },
  { id: 'solid', name: 'SolidJS', strong: ['SolidJS', 'Solid.js', 'Solid JS', 'SolidStart'], bare: ['Solid'] },
  { id: 'preact', name: 'Preact', strong: ['Preact'] },
  { id: 'next', name: 'Next.js', strong: ['Next.js', 'NextJS', 'Next JS'], bare: ['Next'] },
  { id: 'nuxt', name: 'Nuxt', strong: ['Nuxt', 'Nuxt.js', 'NuxtJS', 'Nuxt JS'] },
  { id: 'remix', name: 'Remix', strong: ['Remix Run', 'Remix.run'], bare: ['Remix'] },
  { id: 'gatsby', name: 'Gatsby', strong: ['Gatsby', 'GatsbyJS', 'Gatsby.js'] },
  { id: 'astro', name: 'Astro', strong: ['Astro.js', 'AstroJS'], bare: ['Astro'] },
  { id: 'redux', name: 'Redux', strong: ['Redux', 'Redux Toolkit', 'Redux Saga', 'Redux Thunk', 'RTK Query', 'RTK'] },
  { id: 'zustand', name: 'Zustand', strong: ['Zustand'] },
  { id: 'mobx', name: 'MobX', strong: ['MobX'] },
  { id: 'jotai', name: 'Jotai', strong: ['Jotai'] },
  { id: 'pinia', name: 'Pinia', strong: ['Pinia'] },
  { id: 'express', name: 'Express', strong: ['Express.js', 'ExpressJS', 'Express JS'], bare: ['Express'] },
  { id: 'fastify', name: 'Fastify', strong: ['Fastify'] },
  { id: 'nestjs', name: 'NestJS', strong: ['NestJS', 'Nest.js'] },
  { id: 'koa', name: 'Koa', strong: ['Koa', 'Koa.js', 'KoaJS'] },
  { id: 'django', name: 'Django', strong: ['Django', 'Django REST framework'] },
  { id: 'flask', name: 'Flask', strong: ['Flask'] },
  { id: 'fastapi', name: 'FastAPI', strong: ['FastAPI'] },
  { id: 'starlette', name: 'Starlette', strong: ['Starlette'] },
  { id: 'tornado', name: 'Tornado', strong: [], bare: ['Tornado'] },
  { id: 'click', name: 'Click', strong: [], bare: ['Click'] },
  { id: 'typer', name: 'Typer', strong: ['Typer'] },
  { id: 'tailwindcss', name: 'Tailwind CSS', strong: ['Tailwind', 'TailwindCSS', 'Tailwind CSS'] },
  { id: 'mui', name: 'Material UI', strong: ['Material UI', 'Material-UI', 'MaterialUI', 'MUI'] },
  { id: 'chakra', name: 'Chakra UI', strong: ['Chakra UI', 'Chakra'] },
  { id: 'antd', name: 'Ant Design', strong: ['Ant Design', 'antd'] },
  {
    id: 'bootstrap',
    name: 'Bootstrap',
    strong: ['Twitter Bootstrap', 'Bootstrap CSS', 'Bootstrap 3', 'Bootstrap 4', 'Bootstrap 5'],
    bare: ['Bootstrap'],
  },
  { id: 'gin', name: 'Gin', strong: ['Gin Gonic', 'gin-gonic'], bare: ['Gin'] },
  { id: 'echo', name: 'Echo', strong: ['labstack/echo'], bare: ['Echo'] },
  { id: 'fiber', name: 'Fiber', strong: ['gofiber', 'GoFiber'], bare: ['Fiber'] },
  { id: 'cobra', name: 'Cobra', strong: ['Cobra', 'spf13/cobra'] },
  { id: 'actix', name: 'Actix', strong: ['Actix', 'Actix Web', 'Actix-web', 'actix-web'] },
  { id: 'rocket', name: 'Rocket', strong: ['Rocket.rs'], bare: ['Rocket'] },
  { id: 'axum', name: 'Axum', strong: ['Axum'] },
  { id: 'warp', name: 'Warp', strong: [], bare: ['Warp'] },
  { id: 'clap', name: 'Clap', strong: ['Clap'] },
  { id: 'tokio', name: 'Tokio', strong: ['Tokio'] },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function alternation(spellings: string[]): string {
  return [...spellings]
    .sort((a, b) => b.length - a.length)
    .map((s) => escape(s).replace(/ /g, '[ \\t]+'))
    .join('|');
}

/** A spelling must stand alone: not glued to a word character, `@`, `/`, `.` or `-` before, nor to a word character after ("React-based" counts). */
export function spellingRegex(spellings: string[]): RegExp | null {
  if (spellings.length === 0) return null;
  return new RegExp(`(?<![\\w@/.-])(?:${alternation(spellings)})(?![\\w])`, 'g');
}

export interface CompiledPattern extends FrameworkPattern {
  strongRe: RegExp | null;
  bareRe: RegExp | null;
}

export const COMPILED_PATTERNS: CompiledPattern[] = FRAMEWORK_PATTERNS.map((p) => ({
  ...p,
  strongRe: spellingRegex(p.strong),
  bareRe: spellingRegex(p.bare ?? []),
}));
