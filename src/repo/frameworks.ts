import type { Ecosystem } from './fingerprint-types.js';

/**
 * Framework ids (the ids G11 knows) inferred from declared dependencies. A dependency may imply more
 * than one id when the framework is built on another and ships it (Next.js → React, FastAPI →
 * Starlette, Typer → Click, Nuxt → Vue), so docs describing that stack are grounded.
 */
const EXACT: Partial<Record<Ecosystem, Record<string, string[]>>> = {
  npm: {
    react: ['react'],
    'react-dom': ['react'],
    'react-native': ['react'],
    vue: ['vue'],
    svelte: ['svelte'],
    'solid-js': ['solid'],
    preact: ['preact'],
    next: ['next', 'react'],
    nuxt: ['nuxt', 'vue'],
    nuxt3: ['nuxt', 'vue'],
    gatsby: ['gatsby', 'react'],
    remix: ['remix'],
    astro: ['astro'],
    redux: ['redux'],
    zustand: ['zustand'],
    mobx: ['mobx'],
    jotai: ['jotai'],
    pinia: ['pinia'],
    express: ['express'],
    fastify: ['fastify'],
    koa: ['koa'],
    tailwindcss: ['tailwindcss'],
    antd: ['antd'],
    bootstrap: ['bootstrap'],
    'react-bootstrap': ['bootstrap', 'react'],
  },
  python: {
    django: ['django'],
    djangorestframework: ['django'],
    flask: ['flask'],
    fastapi: ['fastapi', 'starlette'],
    starlette: ['starlette'],
    tornado: ['tornado'],
    click: ['click'],
    typer: ['typer', 'click'],
  },
  rust: {
    'actix-web': ['actix'],
    actix: ['actix'],
    rocket: ['rocket'],
    axum: ['axum', 'tokio'],
    warp: ['warp'],
    clap: ['clap'],
    tokio: ['tokio'],
  },
};

/** Prefix rules: plugin families that only make sense with their framework. */
const PREFIXES: Partial<Record<Ecosystem, [string, string][]>> = {
  npm: [
    ['@angular/', 'angular'],
    ['@sveltejs/kit', 'svelte'],
    ['@sveltejs/', 'svelte'],
    ['@remix-run/', 'remix'],
    ['@nestjs/', 'nestjs'],
    ['@reduxjs/', 'redux'],
    ['redux-', 'redux'],
    ['react-redux', 'redux'],
    ['mobx-', 'mobx'],
    ['@mui/', 'mui'],
    ['@material-ui/', 'mui'],
    ['@chakra-ui/', 'chakra'],
    ['@ant-design/', 'antd'],
    ['@tailwindcss/', 'tailwindcss'],
    ['@vue/', 'vue'],
    ['vue-', 'vue'],
    ['@nuxt/', 'nuxt'],
    ['@astrojs/', 'astro'],
    ['gatsby-', 'gatsby'],
    ['@fastify/', 'fastify'],
    ['@koa/', 'koa'],
    ['koa-', 'koa'],
    ['@preact/', 'preact'],
    ['solid-', 'solid'],
    ['@solidjs/', 'solid'],
    ['@next/', 'next'],
    ['react-', 'react'],
    ['@react-', 'react'],
    ['svelte-', 'svelte'],
  ],
  python: [
    ['django-', 'django'],
    ['flask-', 'flask'],
    ['fastapi-', 'fastapi'],
    ['starlette-', 'starlette'],
  ],
  rust: [
    ['actix-', 'actix'],
    ['rocket_', 'rocket'],
    ['axum-', 'axum'],
    ['clap_', 'clap'],
    ['tokio-', 'tokio'],
  ],
};

/** Go module paths (a trailing `/vN` major-version suffix is ignored). */
const GO_MODULES: Record<string, string> = {
  'github.com/gin-gonic/gin': 'gin',
  'github.com/labstack/echo': 'echo',
  'github.com/gofiber/fiber': 'fiber',
  'github.com/spf13/cobra': 'cobra',
};

export function frameworksOf(ecosystem: Ecosystem, dep: string): string[] {
  const name = dep.toLowerCase();
  if (ecosystem === 'go') {
    const id = GO_MODULES[name.replace(/\/v\d+$/, '')];
    return id ? [id] : [];
  }
  const out = new Set(EXACT[ecosystem]?.[name] ?? []);
  for (const [prefix, id] of PREFIXES[ecosystem] ?? []) if (name.startsWith(prefix)) out.add(id);
  return [...out];
}
