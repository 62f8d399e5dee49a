/** Ecosystems whose manifests the repo fingerprint reads. */
export type Ecosystem = 'npm' | 'python' | 'go' | 'rust' | 'ruby' | 'php' | 'java';

export const ECOSYSTEMS: readonly Ecosystem[] = ['npm', 'python', 'go', 'rust', 'ruby', 'php', 'java'];

/**
 * What a repository is, computed from a tree: its manifests, declared dependencies, inferred
 * frameworks and languages. The grounding guards (G4, G11, G12, Ψ Γ) check a PR's claims against it.
 * Every list is sorted and free of duplicates.
 */
export interface RepoFingerprint {
  /** Repo-relative paths of every manifest found (any depth, vendored dirs skipped). */
  manifests: string[];
  /** Declared dependency names per ecosystem, normalised (npm as written; Python per PEP 503). */
  deps: Record<Ecosystem, string[]>;
  /** Framework ids inferred from the dependencies (e.g. 'react', 'django', 'clap'). */
  frameworks: string[];
  /** Languages present, by file extension counts (e.g. { python: 12, rust: 3 }). */
  languages: Record<string, number>;
  /** Go module paths declared by go.mod files (for module-local import detection). */
  goModules: string[];
  /** Rust crate names declared by Cargo.toml [package] / [lib] (crate-local paths), as written. */
  rustCrates: string[];
  /** npm package names of the repo's own workspaces/packages (never "undeclared"). */
  localPackages: string[];
  /** Python distribution names the repo itself builds ([project].name, Poetry name, setup.cfg name), PEP 503. */
  pythonProjects: string[];
  /** Ecosystems that have at least one manifest (a language with no manifest is not import-checked). */
  ecosystems: Ecosystem[];
}

export function emptyFingerprint(): RepoFingerprint {
  return {
    manifests: [],
    deps: { npm: [], python: [], go: [], rust: [], ruby: [], php: [], java: [] },
    frameworks: [],
    languages: {},
    goModules: [],
    rustCrates: [],
    localPackages: [],
    pythonProjects: [],
    ecosystems: [],
  };
}

/** What one manifest file contributes to the fingerprint. */
export interface ManifestInfo {
  ecosystem: Ecosystem;
  /** Declared dependency names, already normalised for the ecosystem. */
  deps: string[];
  localPackages?: string[];
  goModules?: string[];
  rustCrates?: string[];
  pythonProjects?: string[];
  /** Other files this one includes (requirements `-r`), repo-relative. */
  includes?: string[];
}
