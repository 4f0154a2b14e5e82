/**
 * The README's flag table, generated from {@link nodeAgentFlagTable} (STYLE.md §12): one
 * Markdown table per spec section, with type, default, config-file field and deprecation.
 * `readme.test.ts` checks that README.md embeds exactly this text between its markers.
 */
import type { FlagSpec } from "@skiff/flags";
import { configFieldPaths, flagSections, nodeAgentFlagTable } from "./flags.js";

function cell(s: string): string {
  return s.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The Markdown flag tables, sections in the spec's order, flags sorted by name within each. */
export function formatFlagMarkdownTable(): string {
  const entries = Object.entries(nodeAgentFlagTable) as Array<[string, FlagSpec<unknown>]>;
  let out = "";
  for (const section of flagSections) {
    const rows = entries.filter(([, s]) => s.section === section).sort(([, a], [, b]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    out += `### ${section}\n\n| Flag | Type | Default | Config field | Deprecated |\n|---|---|---|---|---|\n`;
    for (const [key, s] of rows) {
      const name = s.shorthand !== undefined ? `-${s.shorthand}, --${s.name}` : `--${s.name}`;
      const def = s.type.format(s.default);
      const field = Object.hasOwn(configFieldPaths, key) ? `\`${configFieldPaths[key as keyof typeof configFieldPaths]}\`` : "";
      const dep = s.deprecated === undefined ? "" : s.deprecated.startsWith("This parameter should be set via the config file") ? "use --config" : cell(s.deprecated);
      out += `| \`${name}\` | ${s.type.typeName} | ${def === "" ? "" : `\`${cell(def)}\``} | ${field} | ${dep} |\n`;
    }
    out += "\n";
  }
  return out;
}
