import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatFlagMarkdownTable } from "./flag-docs.js";

describe("README", () => {
  it("embeds the flag table generated from the flag table (regenerate with the command in README.md)", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
    const m = /<!-- flag-table:start[^\n]*-->\n([\s\S]*?)<!-- flag-table:end -->/.exec(readme);
    expect(m?.[1]).toBe(formatFlagMarkdownTable());
  });
});
