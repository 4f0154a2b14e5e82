import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeLifecycleFlagTable } from "./node-lifecycle-controller.js";
import { formatFlagMarkdown, formatJobControllerHelp, jobControllerFlagTable } from "./options.js";

describe("job-controller flags", () => {
  it("the README carries the current flag tables of both flag sets", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    expect(readme).toContain(formatFlagMarkdown(jobControllerFlagTable));
    expect(readme).toContain(formatFlagMarkdown(nodeLifecycleFlagTable));
  });

  it("--help lists every Job-controller flag", () => {
    const help = formatJobControllerHelp();
    for (const spec of Object.values(jobControllerFlagTable)) expect(help).toContain(`--${spec.name}`);
  });
});
