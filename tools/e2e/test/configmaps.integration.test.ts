// The Kubernetes documentation's ConfigMap and Secret examples ("Configure a Pod to Use a
// ConfigMap", "Distribute Credentials Securely Using Secrets") run as Jobs on the whole system:
// env, envFrom and `$(VAR)` arguments on a node agent on the process CRI server; configMap and
// secret volumes on a node agent on real containerd when it can be set up (with CI=true it must be;
// the process runtime does not apply mounts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKubectl, setUpContainerd, startCluster, waitFor } from "../src/index.js";
import type { Cluster, ContainerdSetup, NodeSpec } from "../src/index.js";
import { job, jobsPath, podsOf, waitForCondition } from "./helpers.js";

const ci = process.env.CI === "true";
const containerd: ContainerdSetup = setUpContainerd();
if (containerd.endpoint === undefined && !ci) console.warn(`e2e: no containerd node: ${containerd.reason}`);
let cluster: Cluster;

const onContainerd = {
  nodeSelector: { "example.io/hostname": "node-ctd" },
  tolerations: [{ key: "runtime", operator: "Equal", value: "containerd", effect: "NoSchedule" }],
};

beforeAll(async () => {
  const nodes: NodeSpec[] = [{ name: "node-a", runtime: "process" }];
  if (containerd.endpoint !== undefined) nodes.push({ name: "node-ctd", runtime: "containerd", endpoint: containerd.endpoint, args: ["--register-with-taints=runtime=containerd:NoSchedule"] });
  cluster = await startCluster({ nodes });
  const kubectl = (...args: string[]) => runKubectl(cluster.kubeconfig, args);
  for (const r of [
    await kubectl("create", "configmap", "special-config", "--from-literal=SPECIAL_LEVEL=very", "--from-literal=SPECIAL_TYPE=charm"),
    await kubectl("create", "configmap", "env-config", "--from-literal=log_level=INFO"),
    await kubectl("create", "secret", "generic", "test-secret", "--from-literal=username=my-app", "--from-literal=password=39528$vdg7Jb"),
  ]) {
    expect(r.code, r.stderr).toBe(0);
  }
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
  containerd.stop();
}, 300_000);

async function logsOf(name: string): Promise<string> {
  const pods = await podsOf(cluster.api, name);
  const r = await runKubectl(cluster.kubeconfig, ["logs", pods[0]?.metadata?.name ?? "missing"]);
  expect(r.stderr).toBe("");
  return r.stdout;
}

function withContainer(name: string, container: Record<string, unknown>, podSpec: Record<string, unknown> = {}) {
  const j = job(name, {}, "true", podSpec);
  const tpl = j.spec?.template.spec;
  if (tpl) tpl.containers = [{ name: "test-container", image: "busybox", imagePullPolicy: "IfNotPresent", ...container }];
  return j;
}

describe("e2e: documentation ConfigMap and Secret examples as Jobs", () => {
  it("env from ConfigMap keys, used in the command as $(VAR) (dapi-test-pod)", async () => {
    await cluster.api.create(
      jobsPath,
      withContainer("cm-env", {
        command: ["/bin/echo", "$(SPECIAL_LEVEL_KEY) $(LOG_LEVEL)"],
        env: [
          { name: "SPECIAL_LEVEL_KEY", valueFrom: { configMapKeyRef: { name: "special-config", key: "SPECIAL_LEVEL" } } },
          { name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: "env-config", key: "log_level" } } },
        ],
      }),
    );
    await waitForCondition(cluster.api, "cm-env", "Complete");
    expect(await logsOf("cm-env")).toBe("very INFO\n");
  });

  it("envFrom a ConfigMap and env from a Secret key", async () => {
    await cluster.api.create(
      jobsPath,
      withContainer("cm-envfrom", {
        command: ["/bin/sh", "-c", 'echo "SPECIAL_LEVEL=$SPECIAL_LEVEL SPECIAL_TYPE=$SPECIAL_TYPE"; echo "SECRET_USERNAME=$SECRET_USERNAME"'],
        envFrom: [{ configMapRef: { name: "special-config" } }],
        env: [{ name: "SECRET_USERNAME", valueFrom: { secretKeyRef: { name: "test-secret", key: "username" } } }],
      }),
    );
    await waitForCondition(cluster.api, "cm-envfrom", "Complete");
    expect(await logsOf("cm-envfrom")).toBe("SPECIAL_LEVEL=very SPECIAL_TYPE=charm\nSECRET_USERNAME=my-app\n");
  });

  it("envFrom a Secret (envars-test-pod)", async () => {
    await cluster.api.create(jobsPath, withContainer("secret-envfrom", { command: ["/bin/sh", "-c", 'echo "username: $username"; echo "password: $password"'], envFrom: [{ secretRef: { name: "test-secret" } }] }));
    await waitForCondition(cluster.api, "secret-envfrom", "Complete");
    expect(await logsOf("secret-envfrom")).toBe("username: my-app\npassword: 39528$vdg7Jb\n");
  });

  it("a Job referencing a ConfigMap created later completes once it exists", async () => {
    await cluster.api.create(jobsPath, withContainer("late-config", { command: ["/bin/sh", "-c", 'echo "color=$COLOR"'], env: [{ name: "COLOR", valueFrom: { configMapKeyRef: { name: "late", key: "color" } } }] }));
    const waiting = await waitFor(
      "CreateContainerConfigError",
      async () => {
        const w = (await podsOf(cluster.api, "late-config"))[0]?.status?.containerStatuses?.[0]?.state?.waiting;
        return w?.reason === "CreateContainerConfigError" ? w : undefined;
      },
      60_000,
      200,
    );
    expect(waiting.message).toBe('configmap "late" not found');
    expect((await runKubectl(cluster.kubeconfig, ["create", "configmap", "late", "--from-literal=color=blue"])).code).toBe(0);
    await waitForCondition(cluster.api, "late-config", "Complete");
    expect(await logsOf("late-config")).toBe("color=blue\n");
  });

  it.runIf(containerd.endpoint !== undefined || ci)("configMap volumes (all keys; items) and a secret volume on containerd", async () => {
    expect(containerd.endpoint, "containerd must be set up in CI").toBeDefined();
    await cluster.api.create(
      jobsPath,
      withContainer(
        "cm-volume",
        { command: ["/bin/sh", "-c", "ls /etc/config/; cat /etc/keys/keys; echo"], volumeMounts: [{ name: "config-volume", mountPath: "/etc/config" }, { name: "keys-volume", mountPath: "/etc/keys" }] },
        {
          ...onContainerd,
          volumes: [
            { name: "config-volume", configMap: { name: "special-config" } },
            { name: "keys-volume", configMap: { name: "special-config", items: [{ key: "SPECIAL_LEVEL", path: "keys" }] } },
          ],
        },
      ),
    );
    await cluster.api.create(
      jobsPath,
      withContainer(
        "secret-volume",
        { command: ["/bin/sh", "-c", "cat /etc/secret-volume/username; echo; cat /etc/secret-volume/password; echo"], volumeMounts: [{ name: "secret-volume", mountPath: "/etc/secret-volume", readOnly: true }] },
        { ...onContainerd, volumes: [{ name: "secret-volume", secret: { secretName: "test-secret" } }] },
      ),
    );
    await waitForCondition(cluster.api, "cm-volume", "Complete");
    expect(await logsOf("cm-volume")).toBe("SPECIAL_LEVEL\nSPECIAL_TYPE\nvery\n");
    await waitForCondition(cluster.api, "secret-volume", "Complete");
    expect(await logsOf("secret-volume")).toBe("my-app\n39528$vdg7Jb\n");
    expect((await podsOf(cluster.api, "secret-volume"))[0]?.spec?.nodeName).toBe("node-ctd");
  });

  it.runIf(containerd.endpoint !== undefined || ci)("a pod's container reads its service-account token, ca.crt and namespace (kube-api-access) on containerd", async () => {
    expect(containerd.endpoint, "containerd must be set up in CI").toBeDefined();
    const dir = "/var/run/secrets/kubernetes.io/serviceaccount";
    await cluster.api.create(jobsPath, withContainer("sa-token", { command: ["/bin/sh", "-c", `cat ${dir}/token; echo; cat ${dir}/namespace; echo; head -1 ${dir}/ca.crt`] }, { ...onContainerd }));
    await waitForCondition(cluster.api, "sa-token", "Complete");
    const [token = "", namespace, caLine] = (await logsOf("sa-token")).split("\n");
    expect(namespace).toBe("default");
    expect(caLine).toBe("-----BEGIN CERTIFICATE-----");
    const pod = (await podsOf(cluster.api, "sa-token"))[0];
    const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: "system:serviceaccount:default:default", "kubernetes.io": { namespace: "default", pod: { name: pod?.metadata?.name, uid: pod?.metadata?.uid } } });
    expect((claims["exp"] as number) - (claims["iat"] as number)).toBe(3607);
  });
});
