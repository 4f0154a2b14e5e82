import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeCredentialProviderConfig,
  execCredentialProviderPlugin,
  PluginProvider,
  registerCredentialProviderPlugins,
  validateCredentialProviderConfig,
  type CredentialProvider,
  type CredentialProviderResponse,
} from "./plugin.js";

// A real exec plugin: records its stdin, args and one env var, counts its runs, and answers with
// the cache key type and duration found in its environment (set per test through `env`).
const pluginScript = `#!/bin/sh
dir=$(dirname "$0")
cat > "$dir/request.json"
echo "$@" > "$dir/args.txt"
echo "$EXTRA_VAR" > "$dir/env.txt"
echo run >> "$dir/runs.txt"
if [ "$MODE" = "fail" ]; then echo "boom" >&2; exit 3; fi
if [ "$MODE" = "garbage" ]; then echo '{"password":s3cret-in-stdout}'; exit 0; fi
if [ "$MODE" = "wrong-version" ]; then echo '{"kind":"CredentialProviderResponse","apiVersion":"credentialprovider.kubelet.k8s.io/v1beta1"}'; exit 0; fi
dur=""
if [ -n "$CACHE_DURATION" ]; then dur=",\\"cacheDuration\\":\\"$CACHE_DURATION\\""; fi
printf '{"kind":"CredentialProviderResponse","apiVersion":"credentialprovider.kubelet.k8s.io/v1alpha1","cacheKeyType":"%s"%s,"auth":{"*.registry.io":{"username":"plugin-user","password":"s3cret"}}}\\n' "$CACHE_KEY_TYPE" "$dur"
`;

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "h6-plugin-"));
  await writeFile(join(dir, "test-plugin"), pluginScript);
  await chmod(join(dir, "test-plugin"), 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const runs = async () => (await readFile(join(dir, "runs.txt"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
const resetRuns = () => rm(join(dir, "runs.txt"), { force: true });

function provider(env: Record<string, string>, extra: Partial<CredentialProvider> = {}): CredentialProvider {
  return {
    name: "test-plugin",
    matchImages: ["*.registry.io"],
    defaultCacheDurationMs: 60_000,
    apiVersion: "credentialprovider.kubelet.k8s.io/v1alpha1",
    args: ["--flag", "x"],
    env: Object.entries(env).map(([name, value]) => ({ name, value })),
    ...extra,
  };
}

describe("execCredentialProviderPlugin (the exec protocol)", () => {
  it("writes the request to stdin, passes args and env, and decodes the response", async () => {
    const r = await execCredentialProviderPlugin(dir, provider({ CACHE_KEY_TYPE: "Registry", CACHE_DURATION: "5m", EXTRA_VAR: "hello" }), "eu.registry.io/team/app");
    expect(JSON.parse(await readFile(join(dir, "request.json"), "utf8"))).toEqual({
      kind: "CredentialProviderRequest",
      apiVersion: "credentialprovider.kubelet.k8s.io/v1alpha1",
      image: "eu.registry.io/team/app",
    });
    expect((await readFile(join(dir, "args.txt"), "utf8")).trim()).toBe("--flag x");
    expect((await readFile(join(dir, "env.txt"), "utf8")).trim()).toBe("hello");
    expect(r).toEqual({ cacheKeyType: "Registry", cacheDurationMs: 300_000, auth: new Map([["*.registry.io", { username: "plugin-user", password: "s3cret" }]]) });
  });

  it("reports failures with 1.23's messages, never the response body", async () => {
    const lines: string[] = [];
    await expect(execCredentialProviderPlugin(dir, provider({ MODE: "fail" }), "a.registry.io/x", 60_000, (l) => lines.push(l))).rejects.toThrow(
      "error execing credential provider plugin test-plugin for image a.registry.io/x: exit status 3",
    );
    expect(lines.join("")).toContain("stderr: boom");
    // The response is never quoted: it may hold credentials.
    await expect(execCredentialProviderPlugin(dir, provider({ MODE: "garbage" }), "a.registry.io/x")).rejects.toThrow(/^error reading GVK from response: invalid character 's' looking for beginning of value$/);
    await expect(execCredentialProviderPlugin(dir, provider({ MODE: "wrong-version" }), "a.registry.io/x")).rejects.toThrow("apiVersion from credential plugin response did not match");
    await expect(execCredentialProviderPlugin(join(dir, "nope"), provider({}), "a.registry.io/x")).rejects.toThrow(/^error execing credential provider plugin test-plugin for image a.registry.io\/x: fork\/exec/);
  });
});

describe("PluginProvider (caching, matchImages)", () => {
  const fakeExec = (answers: CredentialProviderResponse[]) => {
    const calls: string[] = [];
    return {
      calls,
      exec: (image: string) => {
        calls.push(image);
        const a = answers.shift();
        return a ? Promise.resolve(a) : Promise.reject(new Error("no answer"));
      },
    };
  };
  const answer = (cacheKeyType: string, cacheDurationMs?: number): CredentialProviderResponse => ({
    cacheKeyType,
    cacheDurationMs,
    auth: new Map([["*.registry.io", { username: "u", password: "p" }]]),
  });

  it("runs the real plugin once per registry with cacheKeyType Registry, again after the duration", async () => {
    await resetRuns();
    let now = 1_000_000;
    const p = new PluginProvider(provider({ CACHE_KEY_TYPE: "Registry", CACHE_DURATION: "10s" }), (img) => execCredentialProviderPlugin(dir, provider({ CACHE_KEY_TYPE: "Registry", CACHE_DURATION: "10s" }), img), undefined, () => now);
    const first = await p.provide("eu.registry.io/a");
    expect([...first.entries()]).toEqual([["*.registry.io", { username: "plugin-user", password: "s3cret", email: "" }]]);
    await p.provide("eu.registry.io/b");
    expect(await runs()).toBe(1);
    await p.provide("us.registry.io/a");
    expect(await runs()).toBe(2);
    now += 10_001;
    await p.provide("eu.registry.io/a");
    expect(await runs()).toBe(3);
  });

  it("keys Image answers per image and Global answers for all", async () => {
    const img = fakeExec([answer("Image"), answer("Image"), answer("Global")]);
    const p = new PluginProvider(provider({}), img.exec);
    await p.provide("a.registry.io/x");
    await p.provide("a.registry.io/x");
    await p.provide("a.registry.io/y");
    expect(img.calls).toEqual(["a.registry.io/x", "a.registry.io/y"]);
    const glob = fakeExec([answer("Global")]);
    const g = new PluginProvider(provider({}), glob.exec);
    await g.provide("a.registry.io/x");
    await g.provide("b.registry.io/z");
    expect(glob.calls).toEqual(["a.registry.io/x"]);
  });

  it("does not cache with cacheDuration 0 or defaultCacheDuration 0 and no cacheDuration", async () => {
    const zero = fakeExec([answer("Global", 0), answer("Global", 0)]);
    const p = new PluginProvider(provider({}), zero.exec);
    await p.provide("a.registry.io/x");
    await p.provide("a.registry.io/x");
    expect(zero.calls.length).toBe(2);
    const dflt = fakeExec([answer("Global"), answer("Global")]);
    const q = new PluginProvider(provider({}, { defaultCacheDurationMs: 0 }), dflt.exec);
    await q.provide("a.registry.io/x");
    await q.provide("a.registry.io/x");
    expect(dflt.calls.length).toBe(2);
  });

  it("uses defaultCacheDuration when the response has none", async () => {
    let now = 0;
    const f = fakeExec([answer("Global"), answer("Global")]);
    const p = new PluginProvider(provider({}, { defaultCacheDurationMs: 1000 }), f.exec, undefined, () => now);
    await p.provide("a.registry.io/x");
    now = 999;
    await p.provide("a.registry.io/x");
    expect(f.calls.length).toBe(1);
    now = 1001;
    await p.provide("a.registry.io/x");
    expect(f.calls.length).toBe(2);
  });

  it("skips images outside matchImages, and gives nothing (with a log line) on failure or a bad cacheKeyType", async () => {
    const lines: string[] = [];
    const f = fakeExec([answer("Bogus")]);
    const p = new PluginProvider(provider({}), f.exec, (l) => lines.push(l));
    expect((await p.provide("other.io/x")).size).toBe(0);
    expect(f.calls).toEqual([]);
    expect((await p.provide("a.registry.io/x")).size).toBe(0);
    expect((await p.provide("a.registry.io/x")).size).toBe(0);
    expect(lines).toEqual(['credential provider plugin did not return a valid cacheKeyType: "Bogus"', "Failed getting credential from external registry credential provider: no answer"]);
  });
});

describe("the config file (config.go)", () => {
  const good = `apiVersion: kubelet.config.k8s.io/v1alpha1
kind: CredentialProviderConfig
providers:
  - name: test-plugin
    matchImages: ["*.registry.io", "registry.io:5000/team"]
    defaultCacheDuration: 12h
    apiVersion: credentialprovider.kubelet.k8s.io/v1alpha1
    args: [get]
    env:
      - name: A
        value: b
`;

  it("decodes a valid config", () => {
    expect(decodeCredentialProviderConfig(good)).toEqual({
      providers: [
        {
          name: "test-plugin",
          matchImages: ["*.registry.io", "registry.io:5000/team"],
          defaultCacheDurationMs: 12 * 3600_000,
          apiVersion: "credentialprovider.kubelet.k8s.io/v1alpha1",
          args: ["get"],
          env: [{ name: "A", value: "b" }],
        },
      ],
    });
  });

  it("refuses what the decoder refuses", () => {
    expect(() => decodeCredentialProviderConfig("providers: []\n")).toThrow("Object 'Kind' is missing in 'providers: []\n'");
    expect(() => decodeCredentialProviderConfig("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: CredentialProviderConfig\n")).toThrow(
      'no kind "CredentialProviderConfig" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme "pkg/credentialprovider/plugin/plugin.go:50"',
    );
    expect(() => decodeCredentialProviderConfig(good.replace("12h", "12x"))).toThrow('time: unknown unit "x" in duration "12x"');
  });

  it("validates with 1.23's field errors", () => {
    const errs = validateCredentialProviderConfig({
      providers: [{ name: "a/b c", matchImages: [], defaultCacheDurationMs: -60_000, apiVersion: "credentialprovider.kubelet.k8s.io/v1", args: [], env: [] }, { name: "..", matchImages: ["bad host"], defaultCacheDurationMs: undefined, apiVersion: "", args: [], env: [] }],
    });
    expect(errs).toEqual([
      'providers.name: Invalid value: "a/b c": provider name cannot contain \'/\'',
      'providers.name: Invalid value: "a/b c": provider name cannot contain spaces',
      'providers.apiVersion: Unsupported value: "credentialprovider.kubelet.k8s.io/v1": supported values: "credentialprovider.kubelet.k8s.io/v1alpha1"',
      "providers.matchImages: Required value: at least 1 item in matchImages is required",
      "providers.defaultCacheDuration: Invalid value: -1m0s: defaultCacheDuration must be greater than or equal to 0",
      'providers.name: Invalid value: "..": provider name cannot be \'..\'',
      "providers.apiVersion: Required value: apiVersion is required",
      'providers.matchImages: Invalid value: "bad host": match image is invalid: parse "https://bad host": invalid character " " in host name',
      "providers.defaultCacheDuration: Required value: defaultCacheDuration is required",
    ]);
    expect(validateCredentialProviderConfig({ providers: [] })).toEqual(["providers: Required value: at least 1 item in plugins is required"]);
  });

  it("registers plugins, or refuses with RegisterCredentialProviderPlugins' errors", async () => {
    const cfg = join(dir, "config.yaml");
    await writeFile(cfg, good);
    const plugins = await registerCredentialProviderPlugins(cfg, dir);
    expect(plugins.map((p) => p.provider.name)).toEqual(["test-plugin"]);
    await expect(registerCredentialProviderPlugins(cfg, join(dir, "missing"))).rejects.toThrow(`plugin binary directory ${join(dir, "missing")} did not exist`);
    await expect(registerCredentialProviderPlugins(join(dir, "none.yaml"), dir)).rejects.toThrow(`unable to read external registry credential provider configuration from "${join(dir, "none.yaml")}"`);
    await expect(registerCredentialProviderPlugins("", dir)).rejects.toThrow("credential provider config path is empty");
    await writeFile(cfg, good.replace("name: test-plugin", "name: other-plugin"));
    await expect(registerCredentialProviderPlugins(cfg, dir)).rejects.toThrow(`plugin binary executable ${join(dir, "other-plugin")} did not exist`);
    await writeFile(cfg, good.replace("    defaultCacheDuration: 12h\n", ""));
    await expect(registerCredentialProviderPlugins(cfg, dir)).rejects.toThrow("failed to validate credential provider config: providers.defaultCacheDuration: Required value: defaultCacheDuration is required");
    await writeFile(cfg, "kind: CredentialProviderConfig\n");
    await expect(registerCredentialProviderPlugins(cfg, dir)).rejects.toThrow(`error decoding config ${cfg}: Object 'apiVersion' is missing`);
  });
});
