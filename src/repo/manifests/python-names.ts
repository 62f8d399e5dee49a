/** PEP 503 normalisation: lower case, every run of `-`, `_` and `.` becomes one `-`. */
export function pep503(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_.]+/g, '-');
}

const NAME = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/;

/**
 * The distribution name of one PEP 508 requirement (`requests[socks]>=2; python_version<"3.8"`,
 * `pkg @ https://…`), normalised per PEP 503, or null when the text names no distribution.
 */
export function requirementName(spec: string): string | null {
  const m = NAME.exec(spec);
  return m ? pep503(m[1]!) : null;
}
