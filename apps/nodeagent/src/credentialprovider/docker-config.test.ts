import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeDockerConfigFieldAuth, parseDockercfg, parseDockerConfigEntry, parseDockerConfigJSON, readNodeDockerConfig } from "./docker-config.js";

describe("docker config parsing (config.go)", () => {
  it("decodes auth, padded or not, splitting at the first colon", () => {
    expect(decodeDockerConfigFieldAuth(Buffer.from("user:pa:ss").toString("base64"))).toEqual({ username: "user", password: "pa:ss" });
    expect(decodeDockerConfigFieldAuth("dXNlcjpwdw")).toEqual({ username: "user", password: "pw" }); // unpadded "user:pw"
    expect(() => decodeDockerConfigFieldAuth(Buffer.from("nocolon").toString("base64"))).toThrow("unable to parse auth field, must be formatted as base64(username:password)");
    expect(() => decodeDockerConfigFieldAuth("!!!")).toThrow("illegal base64 data at input byte 0");
  });

  it("lets auth override username/password and matches field names without case", () => {
    expect(parseDockerConfigEntry({ Username: "u", PASSWORD: "p", email: "e" })).toEqual({ username: "u", password: "p", email: "e" });
    expect(parseDockerConfigEntry({ username: "u", password: "p", auth: Buffer.from("a:b").toString("base64") })).toEqual({ username: "a", password: "b", email: "" });
    expect(() => parseDockerConfigEntry({ username: 5 })).toThrow("json: cannot unmarshal number into Go struct field dockerConfigEntryWithAuth.username of type string");
  });

  it("reads .dockercfg maps and config.json auths", () => {
    expect([...parseDockercfg('{"r.io":{"username":"u","password":"p"}}')]).toEqual([["r.io", { username: "u", password: "p", email: "" }]]);
    expect([...parseDockerConfigJSON('{"auths":{"r.io":{"username":"u","password":"p"}},"HttpHeaders":{"a":"b"}}')]).toEqual([["r.io", { username: "u", password: "p", email: "" }]]);
    expect(parseDockerConfigJSON("{}").size).toBe(0);
    expect(() => parseDockercfg("[1]")).toThrow("json: cannot unmarshal array into Go value of type credentialprovider.DockerConfig");
  });

  it("never quotes the text of a config that is not JSON (it holds credentials)", () => {
    const bad = '{"r.io":{"username":"u","password":s3cr3t-pw}}';
    let message = "";
    try {
      parseDockerConfigJSON(bad);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe("invalid character 's' looking for beginning of value");
    expect(() => parseDockercfg('{"a":1')).toThrow("unexpected end of JSON input");
    expect(() => parseDockercfg('{"a":1} x')).toThrow("invalid character 'x' at offset 8");
    expect(() => parseDockercfg("")).toThrow("unexpected end of JSON input");
  });
});

describe("readNodeDockerConfig (defaultDockerConfigProvider)", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("prefers <root-dir>/config.json, then falls back to .dockercfg, skipping files that do not parse", async () => {
    dir = await mkdtemp(join(tmpdir(), "h6-nodecfg-"));
    const root = join(dir, "root");
    const home = join(dir, "home");
    await mkdir(join(home, ".docker"), { recursive: true });
    await mkdir(root, { recursive: true });
    await writeFile(join(home, ".docker", "config.json"), '{"auths":{"home.io":{"username":"h","password":"p"}}}');
    await writeFile(join(root, "config.json"), "{broken");
    const lines: string[] = [];
    expect([...(await readNodeDockerConfig(root, (l) => lines.push(l), home)).keys()]).toEqual(["home.io"]);
    expect(lines.join("\n")).toContain("config.json");
    await writeFile(join(root, "config.json"), '{"auths":{"root.io":{"username":"r","password":"p"}}}');
    expect([...(await readNodeDockerConfig(root, undefined, home)).keys()]).toEqual(["root.io"]);
    await rm(join(root, "config.json"));
    await rm(join(home, ".docker", "config.json"));
    await writeFile(join(home, ".dockercfg"), '{"legacy.io":{"username":"l","password":"p"}}');
    expect([...(await readNodeDockerConfig(root, undefined, home)).keys()]).toEqual(["legacy.io"]);
  });
});
