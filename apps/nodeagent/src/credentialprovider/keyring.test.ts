import type { Secret } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { parseDockercfg } from "./docker-config.js";
import { applyDefaultImageTag, parseImageName } from "./image-name.js";
import { BasicDockerKeyring, isDefaultRegistryMatch, makeDockerKeyring, ProvidersDockerKeyring, type DockerKeyring } from "./keyring.js";
import { globMatch, parseSchemelessURL, urlsMatch } from "./url-match.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const keyringOf = (cfg: Record<string, unknown>) => {
  const k = new BasicDockerKeyring();
  k.add(parseDockercfg(JSON.stringify(cfg)));
  return k;
};

describe("urlsMatch (keyring.go URLsMatchStr)", () => {
  it.each([
    ["*.kubernetes.io", "prefix.kubernetes.io", true],
    ["prefix.*.io", "prefix.kubernetes.io", true],
    ["prefix.kubernetes.*", "prefix.kubernetes.io", true],
    ["*-good.kubernetes.io", "prefix-good.kubernetes.io", true],
    ["*.kubernetes.io", "kubernetes.io", false],
    ["*.kubernetes.io", "a.b.kubernetes.io", false],
    ["kubernetes.io", "prefix.kubernetes.io", false],
    ["kubernetes.io:5000", "kubernetes.io:5000/app", true],
    ["kubernetes.io:5000", "kubernetes.io/app", false],
    ["kubernetes.io", "kubernetes.io:5000/app", false],
    ["*.kubernetes.io/foo", "prefix.kubernetes.io/foo/bar", true],
    ["*.kubernetes.io/foo", "prefix.kubernetes.io/bar", false],
    // Go's url.Parse takes "?" as the start of a query: the host is "k8s.", as upstream.
    ["k8s.?o", "k8s.io", false],
    ["[a-c]cr.io", "bcr.io", true],
    ["[a-c]cr.io", "dcr.io", false],
  ])("%s vs %s → %s", (glob, target, want) => {
    expect(urlsMatch(glob, target)).toBe(want);
  });

  it("reports Go's url.Parse and filepath.Match errors", () => {
    expect(() => parseSchemelessURL("foo bar")).toThrow('parse "https://foo bar": invalid character " " in host name');
    expect(() => parseSchemelessURL("foo:abc/x")).toThrow('parse "https://foo:abc/x": invalid port ":abc" after host');
    expect(() => parseSchemelessURL("%zz")).toThrow('invalid URL escape "%zz"');
    expect(() => globMatch("[", "a")).toThrow("syntax error in pattern");
    expect(() => urlsMatch("[^a-c]cr.io", "bcr.io")).toThrow('invalid character "^" in host name');
    expect(parseSchemelessURL("registry.io:5000/team/app")).toEqual({ host: "registry.io:5000", path: "/team/app" });
  });
});

describe("parseImageName (parsers.ParseImageName)", () => {
  it.each([
    ["busybox", "docker.io/library/busybox", "latest", ""],
    ["busybox:1.36", "docker.io/library/busybox", "1.36", ""],
    ["google/app", "docker.io/google/app", "latest", ""],
    ["index.docker.io/google/app:v1", "docker.io/google/app", "v1", ""],
    ["registry.io:5000/team/app", "registry.io:5000/team/app", "latest", ""],
    ["localhost/app", "localhost/app", "latest", ""],
    [`k8s.gcr.io/pause@sha256:${"a".repeat(64)}`, "k8s.gcr.io/pause", "", `sha256:${"a".repeat(64)}`],
  ])("%s", (image, repo, tag, digest) => {
    expect(parseImageName(image)).toEqual({ repoToPull: repo, tag, digest });
  });

  it("applyDefaultImageTag adds :latest only without tag or digest, leaving the name unqualified", () => {
    expect(applyDefaultImageTag("busybox")).toBe("busybox:latest");
    expect(applyDefaultImageTag("registry.io:5000/app")).toBe("registry.io:5000/app:latest");
    expect(applyDefaultImageTag("registry.io:5000/app:v1")).toBe("registry.io:5000/app:v1");
    expect(applyDefaultImageTag(`app@sha256:${"b".repeat(64)}`)).toBe(`app@sha256:${"b".repeat(64)}`);
  });

  it("refuses bad references with distribution's messages", () => {
    expect(() => parseImageName("Busybox")).toThrow('couldn\'t parse image reference "Busybox": invalid reference format: repository name must be lowercase');
    expect(() => parseImageName("a b")).toThrow('couldn\'t parse image reference "a b": invalid reference format');
    expect(() => parseImageName("")).toThrow('couldn\'t parse image reference "": invalid reference format');
  });
});

describe("BasicDockerKeyring", () => {
  it("matches globbed registries and drops the scheme and /v1/ or /v2/", () => {
    const k = keyringOf({ "https://*.docker.io": { auth: b64("glob:pw") }, "http://quay.io/v2/": { username: "q", password: "p" } });
    expect(k.lookupSync("world.docker.io/foo/bar")).toEqual([{ username: "glob", password: "pw", email: "" }]);
    expect(k.lookupSync("quay.io/team/app")).toEqual([{ username: "q", password: "p", email: "" }]);
    expect(k.lookupSync("example.com/app")).toEqual([]);
  });

  it("returns the more specific path first, then the host's", () => {
    const k = keyringOf({ "quay.io": { username: "host", password: "1" }, "quay.io/team": { username: "team", password: "2" } });
    expect(k.lookupSync("quay.io/team/app").map((a) => a.username)).toEqual(["team", "host"]);
    expect(k.lookupSync("quay.io/other/app").map((a) => a.username)).toEqual(["host"]);
  });

  it("uses index.docker.io's credentials for Docker Hub images", () => {
    const k = keyringOf({ "https://index.docker.io/v1/": { username: "hub", password: "pw" } });
    expect(k.lookupSync(parseImageName("google/app").repoToPull).map((a) => a.username)).toEqual(["hub"]);
    expect(k.lookupSync("registry.io/google/app")).toEqual([]);
  });

  it("ignores an invalid location", () => {
    const lines: string[] = [];
    const k = new BasicDockerKeyring();
    k.add(parseDockercfg(JSON.stringify({ "bad host": { username: "u", password: "p" }, "ok.io": { username: "v", password: "q" } })), (l) => lines.push(l));
    expect(k.lookupSync("ok.io/app").map((a) => a.username)).toEqual(["v"]);
    expect(lines[0]).toContain('Entry "bad host" in dockercfg invalid');
  });
});

describe("isDefaultRegistryMatch", () => {
  it.each([
    ["busybox", true],
    ["library/busybox", true],
    ["docker.io/library/busybox", true],
    ["index.docker.io/x/y", true],
    ["registry.io/x", false],
    ["localhost:5000/x", false],
    ["", false],
  ])("%s → %s", (image, want) => expect(isDefaultRegistryMatch(image)).toBe(want));
});

describe("makeDockerKeyring (secrets.go MakeDockerKeyring)", () => {
  const none: DockerKeyring = { lookup: () => Promise.resolve([]) };
  const node: DockerKeyring = { lookup: () => Promise.resolve([{ username: "node", password: "n" }]) };
  const secret = (type: string, key: string, value: string): Secret => ({ metadata: { name: "s" }, type, data: { [key]: b64(value) } });

  it("reads both secret types, pod secrets first, then the node's keyring", async () => {
    const json = secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", JSON.stringify({ auths: { "registry.io": { auth: b64("json:pw") } } }));
    const cfg = secret("kubernetes.io/dockercfg", ".dockercfg", JSON.stringify({ "registry.io": { username: "cfg", password: "pw", email: "a@b" } }));
    const k = makeDockerKeyring([json, cfg], node);
    expect(await k.lookup("registry.io/app")).toEqual([
      { username: "json", password: "pw", email: "" },
      { username: "cfg", password: "pw", email: "a@b" },
      { username: "node", password: "n" },
    ]);
  });

  it("skips secrets of other types or with the key of another type", async () => {
    const opaque = secret("Opaque", ".dockerconfigjson", JSON.stringify({ auths: { "registry.io": { username: "x", password: "y" } } }));
    const mismatched = secret("kubernetes.io/dockercfg", ".dockerconfigjson", "{}");
    expect(makeDockerKeyring([opaque, mismatched], none)).toBe(none);
  });

  it("fails on a secret whose docker config does not parse", () => {
    expect(() => makeDockerKeyring([secret("kubernetes.io/dockerconfigjson", ".dockerconfigjson", "{not json")], none)).toThrow();
    expect(() => makeDockerKeyring([secret("kubernetes.io/dockercfg", ".dockercfg", JSON.stringify({ "r.io": { auth: b64("nocolon") } }))], none)).toThrow(
      "unable to parse auth field, must be formatted as base64(username:password)",
    );
  });
});

describe("ProvidersDockerKeyring", () => {
  it("asks every provider for the image and looks it up in their answers", async () => {
    const asked: string[] = [];
    const k = new ProvidersDockerKeyring([
      { provide: (img) => (asked.push(img), Promise.resolve(new Map([["*.registry.io", { username: "a", password: "1", email: "" }]]))) },
      { provide: () => Promise.resolve(new Map([["other.io", { username: "b", password: "2", email: "" }]])) },
    ]);
    expect(await k.lookup("eu.registry.io/app")).toEqual([{ username: "a", password: "1", email: "" }]);
    expect(asked).toEqual(["eu.registry.io/app"]);
  });
});
