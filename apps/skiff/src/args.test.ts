import { describe, expect, it } from "vitest";
import { formatHelp, parseSkiffArgs } from "./args.js";

const env = { SKIFF_DATA_DIR: "/tmp/skiff-data" };

describe("parseSkiffArgs", () => {
  it("up with defaults: port 6443, node agent 10250, process runtime, isolation as available, detached", () => {
    const r = parseSkiffArgs(["up"], env);
    expect(r).toMatchObject({ ok: true, value: { command: "up", dataDir: "/tmp/skiff-data", port: 6443, nodeAgentPort: 10250, runtime: "process", processIsolation: undefined, foreground: false } });
  });

  it("up with every flag, in both --flag value and --flag=value forms", () => {
    const r = parseSkiffArgs(["up", "--data-dir", "/d", "--port=7443", "--nodeagent-port", "11250", "--node-name=n1", "--runtime", "containerd", "--containerd-endpoint=unix:///x.sock", "--foreground"], env);
    expect(r).toEqual({
      ok: true,
      value: { command: "up", dataDir: "/d", port: 7443, nodeAgentPort: 11250, nodeName: "n1", runtime: "containerd", containerdEndpoint: "unix:///x.sock", processIsolation: undefined, foreground: true },
    });
  });

  it("a relative --data-dir is resolved against the working directory", () => {
    const r = parseSkiffArgs(["down", "--data-dir", "rel"], env);
    expect(r).toEqual({ ok: true, value: { command: "down", dataDir: `${process.cwd()}/rel` } });
  });

  it.each([
    [["up", "--port", "0"], "--port must be a port number from 1 to 65535, not \"0\""],
    [["up", "--port", "70000"], "--port must be a port number from 1 to 65535, not \"70000\""],
    [["up", "--port", "64x"], "--port must be a port number from 1 to 65535, not \"64x\""],
    [["up", "--nodeagent-port", "2"], "--nodeagent-port must be at least 3"],
    [["up", "--port", "10248"], "--port 10248 collides with the node agent's ports 10250 and 10248"],
    [["up", "--runtime", "docker"], "--runtime must be process or containerd, not \"docker\""],
    [["up", "--containerd-endpoint", "unix:///x"], "--containerd-endpoint is used only with --runtime containerd"],
    [["up", "--runtime=containerd", "--containerd-endpoint", "/x.sock"], "--containerd-endpoint must be a unix:// endpoint"],
    [["up", "--process-isolation", "full"], "--process-isolation must be namespaces or none, not \"full\""],
    [["up", "--runtime=containerd", "--process-isolation", "none"], "--process-isolation is used only with --runtime process"],
    [["up", "--node-name", "Node_1"], "--node-name must be a lower-case DNS subdomain"],
    [["up", "--data-dir="], "--data-dir must not be empty"],
    [["up", "--bogus"], "skiff up: Unknown option '--bogus'"],
    [["up", "--port"], "skiff up: Option '--port <value>' argument missing"],
    [["up", "extra"], "skiff up: Unexpected argument 'extra'"],
    [["down", "--port", "1"], "skiff down: Unknown option '--port'"],
    [["status", "--output", "f"], "skiff status: Unknown option '--output'"],
    [["kubeconfig", "--output="], "--output must not be empty"],
    [["start"], "unknown command \"start\"; the commands are up, down, status, kubeconfig"],
  ])("%j is refused: %s", (argv, message) => {
    const r = parseSkiffArgs(argv, env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join("\n")).toContain(message);
  });

  it("kubeconfig takes --output (or -o), resolved to an absolute path", () => {
    expect(parseSkiffArgs(["kubeconfig", "-o", "/tmp/kc"], env)).toEqual({ ok: true, value: { command: "kubeconfig", dataDir: "/tmp/skiff-data", output: "/tmp/kc" } });
    expect(parseSkiffArgs(["kubeconfig"], env)).toEqual({ ok: true, value: { command: "kubeconfig", dataDir: "/tmp/skiff-data", output: undefined } });
  });

  it("help and version, with and without a command", () => {
    expect(parseSkiffArgs([], env)).toEqual({ ok: true, value: { command: "help", topic: undefined } });
    expect(parseSkiffArgs(["--help"], env)).toEqual({ ok: true, value: { command: "help", topic: undefined } });
    expect(parseSkiffArgs(["up", "--help"], env)).toEqual({ ok: true, value: { command: "help", topic: "up" } });
    expect(parseSkiffArgs(["help", "kubeconfig"], env)).toEqual({ ok: true, value: { command: "help", topic: "kubeconfig" } });
    expect(parseSkiffArgs(["--version"], env)).toEqual({ ok: true, value: { command: "version" } });
  });

  it("the default data directory is ~/.skiff without SKIFF_DATA_DIR", () => {
    const r = parseSkiffArgs(["status"], {});
    expect(r.ok && r.value.command === "status" && r.value.dataDir.endsWith("/.skiff")).toBe(true);
  });
});

describe("formatHelp", () => {
  it("lists the commands, and each command's help lists its flags", () => {
    expect(formatHelp()).toMatch(/up .*\n.*down .*\n.*status .*\n.*kubeconfig /);
    for (const flag of ["--data-dir", "--port", "--nodeagent-port", "--node-name", "--runtime", "--containerd-endpoint", "--process-isolation", "--foreground"]) expect(formatHelp("up")).toContain(flag);
    expect(formatHelp("kubeconfig")).toContain("--output FILE");
  });
});
