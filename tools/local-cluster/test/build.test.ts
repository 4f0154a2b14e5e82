// pnpm start's build step (tools/local-cluster/build.mjs) on a scratch workspace of two packages,
// b referencing a: the first run builds both in dependency order, a second run builds nothing, a
// changed source rebuilds its package and the packages that reference it, a failing build names
// the package and shows its output.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

interface BuildModule {
  buildWorkspace(o: { root: string; roots: string[]; say: (line: string) => void; quiet: boolean }): Promise<void>;
}
const { buildWorkspace } = (await import(pathToFileURL(join(import.meta.dirname, "../build.mjs")).href)) as BuildModule;

const root = mkdtempSync(join(tmpdir(), "skiff-build-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const log = join(root, "order.log");

function pkg(dir: string, refs: string[], script = `mkdir -p dist && echo built > dist/index.js && echo ${dir} >> ${log}`) {
  mkdirSync(join(root, dir, "src"), { recursive: true });
  writeFileSync(join(root, dir, "src", "index.ts"), "export {};\n");
  writeFileSync(join(root, dir, "package.json"), JSON.stringify({ name: `@x/${dir}`, scripts: { build: script } }));
  writeFileSync(join(root, dir, "tsconfig.json"), JSON.stringify({ references: refs.map((r) => ({ path: `../${r}` })) }));
}

async function build(): Promise<string[]> {
  writeFileSync(log, "");
  const lines: string[] = [];
  await buildWorkspace({ root, roots: ["b"], say: (l) => lines.push(l), quiet: true });
  return [readFileSync(log, "utf8").trim(), ...lines];
}

const later = (path: string) => {
  const t = new Date(Date.now() + 5000);
  utimesSync(path, t, t);
};

describe("pnpm start's build", () => {
  pkg("a", []);
  pkg("b", ["a"]);

  it("first run: both packages, references first, with the first-build notice and the total", async () => {
    const [order, ...lines] = await build();
    expect(order).toBe("a\nb");
    expect(lines[0]).toMatch(/^skiff: first build: 2 packages, about 3 minutes/);
    expect(lines.at(-1)).toMatch(/^ {2}✓ build: 2 packages in \d+\.\d s$/);
  });

  it("second run: everything is fresh, nothing is built or printed", async () => {
    expect(await build()).toEqual([""]);
  });

  it("a changed source of a rebuilds a and b; of b only b", async () => {
    later(join(root, "a", "src", "index.ts"));
    const [order, first] = await build();
    expect(order).toBe("a\nb");
    expect(first).toBe("skiff: building 2 of 2 packages (0 fresh, skipped)");
    later(join(root, "b", "src", "index.ts"));
    utimesSync(join(root, "a", "src", "index.ts"), new Date(0), new Date(0));
    expect((await build())[0]).toBe("b");
  });

  it("a failing build rejects naming the package, with its output", async () => {
    pkg("b", ["a"], "echo 'src/index.ts(1,1): error TS1005' && exit 2");
    later(join(root, "b", "package.json"));
    await expect(build()).rejects.toThrow(/b: `echo .*` failed \(exit code 2\):\nsrc\/index.ts\(1,1\): error TS1005/);
  });
});
