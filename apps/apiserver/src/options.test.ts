import { describe, expect, it } from "vitest";
import { apiServerFlagTable, formatAPIServerHelp, formatFlagMarkdownTable, parseAPIServerOptions } from "./options.js";

describe("parseAPIServerOptions", () => {
  it("applies the kube-apiserver defaults", () => {
    const r = parseAPIServerOptions([]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      bindAddress: "0.0.0.0",
      securePort: 6443,
      certDir: ".skiff/pki",
      anonymousAuth: true,
      authorizationMode: ["AlwaysAllow"],
      dataDir: ".skiff/data",
      etcdPrefix: "/registry",
      loggingFormat: "text",
      defaultNotReadyTolerationSeconds: 300,
      defaultUnreachableTolerationSeconds: 300,
      help: false,
      version: false,
    });
  });

  it("parses every flag form", () => {
    const r = parseAPIServerOptions([
      "--secure-port=0",
      "--bind_address",
      "127.0.0.1",
      "--anonymous-auth=false",
      "--token-auth-file=/t.csv",
      "--feature-gates=JobReadyPods=false",
      "-v=4",
      "--logging-format=json",
      "--default-not-ready-toleration-seconds=30",
      "--default_unreachable_toleration_seconds",
      "45",
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.securePort).toBe(0);
    expect(r.value.bindAddress).toBe("127.0.0.1");
    expect(r.value.anonymousAuth).toBe(false);
    expect(r.value.tokenAuthFile).toBe("/t.csv");
    expect(r.value.featureGates).toEqual({ JobReadyPods: false });
    expect(r.value.verbosity).toBe(4);
    expect([r.value.defaultNotReadyTolerationSeconds, r.value.defaultUnreachableTolerationSeconds]).toEqual([30, 45]);
  });

  it("-v is component-base's unsigned VerbosityLevel, as in 1.23", () => {
    const r = parseAPIServerOptions(["-v=-1"]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.join("\n")).toContain('invalid argument "-1" for "-v, --v" flag: strconv.ParseUint: parsing "-1": invalid syntax');
  });
  it("reports pflag errors", () => {
    const r = parseAPIServerOptions(["--nope"]);
    expect(r).toMatchObject({ ok: false, errors: ["unknown flag: --nope"] });
    const r2 = parseAPIServerOptions(["--secure-port=x"]);
    expect(r2.ok).toBe(false);
  });

  it("reports every semantic error at once", () => {
    const r = parseAPIServerOptions(
      [
        "--secure-port=70000",
        "--bind-address=localhost",
        "--tls-cert-file=a.crt",
        "--authorization-mode=ABAC,Foo",
        "--etcd-servers=127.0.0.1:2379",
        "--etcd-certfile=c.pem",
        "--etcd-prefix=registry",
        "--logging-format=xml",
        "--feature-gates=Bogus=true",
        "--authorization-policy-file=p.jsonl",
      ],
      ["JobReadyPods"],
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.errors.join("\n");
    for (const needle of [
      "--secure-port 70000",
      "--bind-address",
      "--tls-cert-file and --tls-private-key-file",
      '"Foo" is not a valid mode',
      '--etcd-servers "127.0.0.1:2379" must be a URL',
      "--etcd-certfile and --etcd-keyfile",
      "--etcd-prefix",
      "--logging-format",
      "unrecognized feature gate: Bogus",
    ]) {
      expect(text).toContain(needle);
    }
    expect(r.errors.length).toBeGreaterThanOrEqual(9);
  });

  it("accepts IPv6 bind addresses and rejects duplicate modes", () => {
    expect(parseAPIServerOptions(["--bind-address=::"]).ok).toBe(true);
    const r = parseAPIServerOptions(["--authorization-mode=AlwaysAllow,AlwaysAllow"]);
    expect(r.ok).toBe(false);
  });

  it("accepts RBAC and AlwaysDeny in lists, refuses Node as not implemented", () => {
    const r = parseAPIServerOptions(["--authorization-mode=RBAC,AlwaysAllow"]);
    expect(r.ok && r.value.authorizationMode).toEqual(["RBAC", "AlwaysAllow"]);
    expect(parseAPIServerOptions(["--authorization-mode=AlwaysDeny"]).ok).toBe(true);
    const node = parseAPIServerOptions(["--authorization-mode=Node,RBAC"]);
    expect(node.ok).toBe(false);
    if (!node.ok) expect(node.errors.join("\n")).toContain('authorization mode "Node" is not supported by skiff-apiserver: the Node authorizer is not implemented yet');
  });
});

describe("help and README table", () => {
  it("prints sections and every flag", () => {
    const help = formatAPIServerHelp();
    expect(help).toContain("Secure serving flags:");
    expect(help).toContain("--secure-port");
    expect(help).toContain("--token-auth-file");
    expect(help).toMatch(/Admission flags:\n\n\s+--default-not-ready-toleration-seconds int\s/);
  });
  it("renders a markdown row per flag", () => {
    const md = formatFlagMarkdownTable();
    expect(md).toContain("| `--secure-port` | int32 | `6443` |");
    expect(md.split("\n").filter((l) => l.startsWith("| `")).length).toBe(Object.keys(apiServerFlagTable).length);
  });
});
