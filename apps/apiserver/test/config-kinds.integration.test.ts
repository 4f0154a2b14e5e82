// Issue 17 (apiserver side of items 1 and 3): ConfigMap, Secret and ServiceAccount through the
// real kubectl 1.32 against the real skiff-apiserver — create (kubectl's protobuf bodies), get
// (1.23's columns), describe, delete, 1.23's 422 causes — and the service-account controller,
// the root CA publisher and the ServiceAccount admission (with the kube-api-access volume on).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startServer, writeKubeconfig } from "./harness.js";
import type { RunningServer } from "./harness.js";
import { Kubectl, headerColumns, kubectlBuilds } from "./kubectl-helpers.js";

const kubectl132 = kubectlBuilds.find((b) => b.label === "1.32")?.path;
const secretValue = "s3cr3t-hunter2-value";

let s: RunningServer;
let k: Kubectl;
beforeAll(async () => {
  process.env["SKIFF_MOUNT_SERVICE_ACCOUNT_TOKEN"] = "true";
  try {
    s = await startServer({ extraArgs: ["-v=2"] });
  } finally {
    delete process.env["SKIFF_MOUNT_SERVICE_ACCOUNT_TOKEN"];
  }
  k = new Kubectl(kubectl132 ?? "", await writeKubeconfig(s), join(s.dir, "home"));
}, 60_000);
afterAll(async () => {
  await s.stop();
});

const until = async <T>(get: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const getJSON = async (path: string): Promise<Record<string, unknown> | undefined> => {
  const r = await call(s, "GET", path);
  return r.status === 200 ? (r.json() as Record<string, unknown>) : undefined;
};
const ok = (r: { code: number | null; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe.skipIf(kubectl132 === undefined)("kubectl 1.32: configmaps, secrets, serviceaccounts", () => {
  it("create configmap|secret generic|docker-registry|tls|serviceaccount, then get cm,secret,sa with 1.23's columns", async () => {
    ok(k.run("create", "configmap", "x", "--from-literal=a=b", "--from-literal=c=d"));
    ok(k.run("create", "secret", "generic", "gen", `--from-literal=password=${secretValue}`));
    ok(k.run("create", "secret", "docker-registry", "reg", "--docker-server=registry.example.io", "--docker-username=u", "--docker-password=p"));
    ok(k.run("create", "secret", "tls", "tls1", `--cert=${join(s.dir, "pki", "apiserver.crt")}`, `--key=${join(s.dir, "pki", "apiserver.key")}`));
    ok(k.run("create", "serviceaccount", "builder"));
    const r = k.run("get", "cm,secret,sa");
    ok(r);
    const blocks = r.stdout.trim().split("\n\n");
    expect(headerColumns(blocks[0]!.split("\n")[0]!)).toEqual(["NAME", "DATA", "AGE"]);
    expect(headerColumns(blocks[1]!.split("\n")[0]!)).toEqual(["NAME", "TYPE", "DATA", "AGE"]);
    expect(headerColumns(blocks[2]!.split("\n")[0]!)).toEqual(["NAME", "SECRETS", "AGE"]);
    const row = (name: string) => r.stdout.split("\n").find((l) => l.startsWith(`${name} `))?.trim().split(/\s+/).slice(0, -1);
    expect(row("configmap/x")).toEqual(["configmap/x", "2"]);
    expect(row("configmap/kube-root-ca.crt")).toEqual(["configmap/kube-root-ca.crt", "1"]);
    expect(row("secret/gen")).toEqual(["secret/gen", "Opaque", "1"]);
    expect(row("secret/reg")).toEqual(["secret/reg", "kubernetes.io/dockerconfigjson", "1"]);
    expect(row("secret/tls1")).toEqual(["secret/tls1", "kubernetes.io/tls", "2"]);
    expect(row("serviceaccount/builder")).toEqual(["serviceaccount/builder", "0"]);
    expect(row("serviceaccount/default")).toEqual(["serviceaccount/default", "0"]);
    expect(k.run("get", "cm", "x", "-o", "jsonpath={.data.a}").stdout).toBe("b");
  });

  it("describe shows ConfigMap data and only the sizes of Secret data", () => {
    const cm = k.run("describe", "configmap", "x");
    ok(cm);
    expect(cm.stdout).toMatch(/^Name:\s+x$/m);
    expect(cm.stdout).toMatch(/^a:\n----\nb$/m);
    const sec = k.run("describe", "secret", "gen");
    ok(sec);
    expect(sec.stdout).toMatch(/^Type:\s+Opaque$/m);
    expect(sec.stdout).toMatch(/^password:\s+20 bytes$/m);
    expect(sec.stdout).not.toContain(secretValue);
    const sa = k.run("describe", "serviceaccount", "builder");
    ok(sa);
    expect(sa.stdout).toMatch(/^Image pull secrets:\s+<none>$/m);
  });

  it("stringData is merged into data and never returned; the apiserver's log never holds a Secret value", async () => {
    const f = await k.manifest("sd.yaml", `apiVersion: v1\nkind: Secret\nmetadata:\n  name: sd\nstringData:\n  token: ${secretValue}\n`);
    ok(k.run("apply", "-f", f));
    const obj = (await getJSON("/api/v1/namespaces/default/secrets/sd"))!;
    expect(obj["stringData"]).toBeUndefined();
    expect(obj["data"]).toEqual({ token: Buffer.from(secretValue).toString("base64") });
    expect(obj["type"]).toBe("Opaque");
    expect(s.stderr()).not.toContain(secretValue);
    expect(s.stderr()).not.toContain(Buffer.from(secretValue).toString("base64"));
  });

  it("answers invalid objects with 1.23's 422 causes", async () => {
    const big = await call(s, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "big" }, data: { a: "x".repeat(1024 * 1024 + 1) } });
    expect(big.status).toBe(422);
    expect(big.json()).toMatchObject({
      reason: "Invalid",
      message: 'ConfigMap "big" is invalid: : Too long: must have at most 1048576 bytes',
      details: { name: "big", kind: "ConfigMap", causes: [{ reason: "FieldValueTooLong", message: "Too long: must have at most 1048576 bytes", field: "" }] },
    });
    const keys = await call(s, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "keys" }, data: { "a/b": "1", k: "" }, binaryData: { k: "" } });
    expect(keys.status).toBe(422);
    expect((keys.json() as { details: { causes: unknown[] } }).details.causes).toEqual([
      { reason: "FieldValueInvalid", message: expect.stringMatching(/^Invalid value: "a\/b": a valid config key must consist of alphanumeric characters/) as unknown, field: "data[a/b]" },
      { reason: "FieldValueInvalid", message: 'Invalid value: "k": duplicate of key present in binaryData', field: "data[k]" },
    ]);
    const tls = k.run("create", "secret", "generic", "notls", "--type=kubernetes.io/tls", "--from-literal=tls.crt=x");
    expect(tls.code).not.toBe(0);
    expect(tls.stderr).toContain('Secret "notls" is invalid: data[tls.key]: Required value');
    const dcj = k.run("create", "secret", "generic", "baddcj", "--type=kubernetes.io/dockerconfigjson", "--from-literal=.dockerconfigjson={oops");
    expect(dcj.stderr).toContain('data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'o\' looking for beginning of object key string');
    const b64 = await call(s, "POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "b64" }, data: { k: "not base64!" } });
    expect(b64.status).toBe(400);
    expect((b64.json() as { message: string }).message).toContain("illegal base64 data at input byte 3");
  });

  it("an immutable ConfigMap or Secret keeps its data; a Secret keeps its type", async () => {
    ok(k.run("create", "configmap", "frozen", "--from-literal=a=1"));
    ok(k.run("patch", "configmap", "frozen", "--type=merge", "-p", '{"immutable":true}'));
    const r = k.run("patch", "configmap", "frozen", "--type=merge", "-p", '{"data":{"a":"2"}}');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    ok(k.run("label", "configmap", "frozen", "may=change"));
    const t = k.run("patch", "secret", "gen", "--type=merge", "-p", '{"type":"kubernetes.io/basic-auth"}');
    expect(t.stderr).toContain('Secret "gen" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable');
  });

  it("watch, patch types, server-side apply and deletecollection work on secrets", async () => {
    const w = k.watch("get", "secrets", "-l", "batch=w", "-w", "--output-watch-events");
    try {
      ok(k.run("create", "secret", "generic", "w1", "--from-literal=k=v"));
      ok(k.run("label", "secret", "w1", "batch=w"));
      // Entering the selection is an ADDED event, as 1.23's watch cache sends it.
      await w.waitFor(/^ADDED\s+w1\s+Opaque\s+1/);
    } finally {
      await w.stop();
    }
    ok(k.run("patch", "secret", "w1", "--type=json", "-p", '[{"op":"add","path":"/data/j","value":"ag=="}]'));
    ok(k.run("patch", "secret", "w1", "--type=strategic", "-p", '{"stringData":{"s":"t"}}'));
    const data = ((await getJSON("/api/v1/namespaces/default/secrets/w1"))!["data"] ?? {}) as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(["j", "k", "s"]);
    const f = await k.manifest("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  labels:\n    batch: w\ndata:\n  a: '1'\n");
    ok(k.run("apply", "--server-side", "-f", f));
    ok(k.run("apply", "--server-side", "-f", f));
    const del = await call(s, "DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=batch%3Dw");
    expect(del.status).toBe(200);
    expect((del.json() as { kind: string; items: unknown[] }).items).toHaveLength(1);
    expect(await getJSON("/api/v1/namespaces/default/configmaps/ssa")).toBeUndefined();
  });

  it("delete answers for each kind", () => {
    const r = k.run("delete", "configmap/x", "secret/gen", "serviceaccount/builder");
    ok(r);
    expect(r.stdout.trim().split("\n")).toEqual(['configmap "x" deleted', 'secret "gen" deleted', 'serviceaccount "builder" deleted']);
    expect(k.run("get", "cm", "x").stderr).toContain('Error from server (NotFound): configmaps "x" not found');
  });
});

describe("service accounts, the root CA and pods", () => {
  it("a new namespace gets the default ServiceAccount and kube-root-ca.crt (the serving CA); both come back after deletion", async () => {
    expect((await call(s, "POST", "/api/v1/namespaces", { metadata: { name: "team" } })).status).toBe(201);
    const sa = await until(() => getJSON("/api/v1/namespaces/team/serviceaccounts/default"), "default service account");
    const cm = await until(() => getJSON("/api/v1/namespaces/team/configmaps/kube-root-ca.crt"), "kube-root-ca.crt");
    expect(cm["data"]).toEqual({ "ca.crt": await readFile(join(s.dir, "pki", "ca.crt"), "utf8") });
    expect((await call(s, "DELETE", "/api/v1/namespaces/team/serviceaccounts/default")).status).toBe(200);
    await until(async () => {
      const again = await getJSON("/api/v1/namespaces/team/serviceaccounts/default");
      return again && (again["metadata"] as { uid: string }).uid !== (sa["metadata"] as { uid: string }).uid ? again : undefined;
    }, "default service account recreated");
    expect((await call(s, "DELETE", "/api/v1/namespaces/team/configmaps/kube-root-ca.crt")).status).toBe(200);
    await until(() => getJSON("/api/v1/namespaces/team/configmaps/kube-root-ca.crt"), "kube-root-ca.crt recreated");
  });

  it("a pod created right after its namespace runs as default with the kube-api-access volume; a missing service account is 403", async () => {
    expect((await call(s, "POST", "/api/v1/namespaces", { metadata: { name: "fresh" } })).status).toBe(201);
    const created = await call(s, "POST", "/api/v1/namespaces/fresh/pods", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } });
    expect(created.status, created.body).toBe(201);
    const spec = (created.json() as { spec: Record<string, unknown> }).spec as {
      serviceAccountName: string;
      serviceAccount: string;
      volumes: { name: string; projected: unknown }[];
      containers: { volumeMounts: unknown[] }[];
    };
    expect(spec.serviceAccountName).toBe("default");
    expect(spec.serviceAccount).toBe("default");
    expect(spec.volumes).toHaveLength(1);
    expect(spec.volumes[0]?.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(spec.volumes[0]?.projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    });
    expect(spec.containers[0]?.volumeMounts).toEqual([{ name: spec.volumes[0]?.name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }]);
    const missing = await call(s, "POST", "/api/v1/namespaces/fresh/pods", { metadata: { name: "q" }, spec: { serviceAccountName: "ghost", containers: [{ name: "c", image: "busybox:1.36" }] } });
    expect(missing.status).toBe(403);
    expect(missing.json()).toMatchObject({ reason: "Forbidden", message: 'pods "q" is forbidden: error looking up service account fresh/ghost: serviceaccount "ghost" not found' });
  });
});
