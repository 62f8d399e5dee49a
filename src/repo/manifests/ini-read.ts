/**
 * A small INI reader in the shape setuptools' setup.cfg uses: `[section]` headers, `key = value` or
 * `key: value`, indented continuation lines appended to the previous value with a newline, `#` and
 * `;` full-line comments. Section and key names are lower-cased. Enough for reading dependency lists.
 */
export function readIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | null = null;
  let lastKey: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*[#;]/.test(raw) || !raw.trim()) continue;
    const header = /^\[([^\]]+)\]\s*$/.exec(raw.trim());
    if (header && !/^\s/.test(raw)) {
      const name = header[1]!.trim().toLowerCase();
      section = sections.get(name) ?? new Map();
      sections.set(name, section);
      lastKey = null;
      continue;
    }
    if (!section) continue;
    if (/^\s/.test(raw) && lastKey !== null) {
      section.set(lastKey, `${section.get(lastKey) ?? ''}\n${raw.trim()}`);
      continue;
    }
    const kv = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(raw);
    if (!kv) continue;
    lastKey = kv[1]!.trim().toLowerCase();
    section.set(lastKey, kv[2]!.trim());
  }
  return sections;
}
