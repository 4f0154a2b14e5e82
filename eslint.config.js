// @ts-check
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Workspace packages in dependency order: each may import only those of earlier layers
 * (DESIGN.md). `client` sits beside `validation`, not above `apiserver-core`: it speaks only HTTP,
 * so it builds on the wire types and apimachinery and never on the server side (`storage`,
 * `apiserver-core`) or `validation` (STYLE.md §2).
 */
const layers = [
  ["api-types", "completed-indexes", "feature-gates", "flags", "cri-api", "csi-api"],
  ["apimachinery"],
  ["validation", "client"],
  ["storage"],
  ["apiserver-core"],
];
/** Packages that share a layer but still may not import each other (the client is HTTP-only). */
const notAllowed = { "storage": ["client"], "apiserver-core": ["client"] };
const leaves = new Set(layers[0]);
const allPackages = layers.flat();

/** @param {string} pkg */
function forbiddenFor(pkg) {
  const idx = layers.findIndex((l) => l.includes(pkg));
  const excluded = /** @type {Record<string, string[]>} */ (notAllowed)[pkg] ?? [];
  const allowed = leaves.has(pkg) ? [] : layers.slice(0, idx).flat().filter((p) => !excluded.includes(p));
  return allPackages.filter((p) => p !== pkg && !allowed.includes(p)).map((p) => `@skiff/${p}`);
}

/**
 * Tests import through their own package's declared dependencies: a `@skiff/*` import must be
 * the package itself or listed in its package.json (dependencies, devDependencies or
 * peerDependencies), and a relative import must stay inside the package's folder
 * (`packages/<name>`, `apps/<name>`, `tools/<name>`).
 * @type {import("eslint").Rule.RuleModule}
 */
const testImportsDeclaredRule = {
  meta: { type: "problem", schema: [] },
  create(context) {
    const file = path.relative(workspaceRoot, context.filename);
    const [top, name] = file.split(path.sep);
    if (top === undefined || name === undefined || !["packages", "apps", "tools"].includes(top)) return {};
    const packageDir = path.join(workspaceRoot, top, name);
    const declared = declaredDependencies(packageDir);
    /** @param {import("eslint").Rule.Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== "string") return;
      if (source.startsWith("@skiff/")) {
        const pkg = source.split("/").slice(0, 2).join("/");
        if (!declared.has(pkg)) context.report({ node, message: `${pkg} is not a dependency in ${top}/${name}/package.json: declare it ("workspace:*") to import it from a test.` });
      } else if (source.startsWith(".")) {
        const target = path.resolve(path.dirname(context.filename), source);
        if (!target.startsWith(packageDir + path.sep)) context.report({ node, message: `A test reaches outside ${top}/${name} through a relative path: import the package by name and declare it.` });
      }
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => check(node, node.source?.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => check(node, node.source.type === "Literal" ? node.source.value : undefined),
    };
  },
};

const workspaceRoot = path.dirname(fileURLToPath(import.meta.url));

/** @type {Map<string, Set<string>>} */
const declaredCache = new Map();
/** @param {string} packageDir */
function declaredDependencies(packageDir) {
  let declared = declaredCache.get(packageDir);
  if (declared === undefined) {
    declared = new Set();
    const file = path.join(packageDir, "package.json");
    if (fs.existsSync(file)) {
      const pj = JSON.parse(fs.readFileSync(file, "utf8"));
      for (const k of [pj.name, ...Object.keys({ ...pj.dependencies, ...pj.devDependencies, ...pj.peerDependencies })]) declared.add(k);
    }
    declaredCache.set(packageDir, declared);
  }
  return declared;
}

const restrictApps = {
  group: ["@skiff/apiserver", "@skiff/job-controller", "@skiff/scheduler", "@skiff/nodeagent", "**/apps/**"],
  message: "Packages never import apps, and apps never import each other (STYLE.md §2).",
};

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/src/generated/**", ".skiff/**", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", setImmediate: "readonly", Buffer: "readonly", URL: "readonly", TextEncoder: "readonly", TextDecoder: "readonly", AbortController: "readonly", AbortSignal: "readonly", structuredClone: "readonly", performance: "readonly", fetch: "readonly", queueMicrotask: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": ["error", { selector: "ExportAllDeclaration", message: "List exports by name (STYLE.md §4)." }],
    },
  },
  ...allPackages.map((pkg) => ({
    files: [`packages/${pkg}/src/**/*.ts`],
    ignores: [`packages/${pkg}/src/**/*.test.ts`],
    rules: {
      "no-restricted-imports": ["error", { patterns: [restrictApps, ...forbiddenFor(pkg).map((p) => ({ group: [p, `${p}/*`], message: "Dependency direction (DESIGN.md): this package may not import that one." }))] }],
    },
  })),
  {
    files: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.ts", "apps/*/src/**/*.test.ts", "apps/*/test/**/*.ts", "tools/*/src/**/*.test.ts", "tools/*/test/**/*.ts"],
    plugins: { skiff: { rules: { "test-imports-declared": testImportsDeclaredRule } } },
    rules: { "skiff/test-imports-declared": "error" },
  },
  {
    // The apiserver may import apiserver-core and storage, but no other app.
    files: ["apps/apiserver/src/**/*.ts", "apps/apiserver/test/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [restrictApps] }],
    },
  },
  {
    files: ["apps/job-controller/src/**/*.ts", "apps/scheduler/src/**/*.ts", "apps/nodeagent/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [restrictApps, { group: ["@skiff/apiserver-core", "@skiff/storage"], message: "Controllers and the node agent reach the apiserver only over HTTP through @skiff/client (STYLE.md §2)." }] }],
    },
  },
);
