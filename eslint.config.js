// @ts-check
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
