import { EGRESS_PROXY_URL } from '../../sandbox/index.js';

/**
 * Gradle builds are not run by the test gate: the wrapper downloads Gradle itself from
 * services.gradle.org (redirected to downloads.gradle.org) and the build's plugins come from the
 * plugin portal (plugins.gradle.org, plugins-artifacts.gradle.org) — hosts that are not package
 * registries, so the sandbox's egress proxy refuses them. The skip says so and names both ways out.
 */

const GRADLE_FILES = ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts', 'gradlew'];

export const GRADLE_HOSTS = ['services.gradle.org', 'downloads.gradle.org', 'plugins.gradle.org', 'plugins-artifacts.gradle.org'];

/** The skip reason for a Gradle build at the base root, or null when the root has no Gradle build. */
export function gradleSkip(rootPaths: string[]): string | null {
  const found = GRADLE_FILES.filter((f) => rootPaths.includes(f));
  if (found.length === 0) return null;
  return (
    `Gradle build (${found.join(', ')}): the test gate runs Maven builds, not Gradle ones — Gradle downloads itself from services.gradle.org (the wrapper) ` +
    `and its plugins from plugins.gradle.org, which are not package registries, so the sandbox's egress proxy refuses them. ` +
    `To gate this repository's tests, the operator allows ${GRADLE_HOSTS.join(',')} in SLOPGATE_EGRESS_ALLOW, and the repository sets tests.network: true ` +
    `and a tests.command that runs Gradle through the sandbox's proxy (${EGRESS_PROXY_URL}) and copies its JUnit XML reports into $SLOPGATE_OUT ` +
    `(docs/test-gate.md, "Gradle", has one).`
  );
}
