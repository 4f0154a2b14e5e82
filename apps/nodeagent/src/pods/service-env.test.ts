import { describe, expect, it } from "vitest";
import type { Container, Pod } from "@skiff/api-types";
import { makeEnvironmentVariables } from "./env.js";
import { kubernetesServiceAddressFor, kubernetesServiceEnv } from "./service-env.js";

describe("kubernetesServiceEnv (envvars.FromServices of the `kubernetes` service)", () => {
  it("gives 1.23's names and values, in its order", () => {
    expect([...kubernetesServiceEnv({ host: "10.0.0.1", port: 443 })]).toEqual([
      ["KUBERNETES_SERVICE_HOST", "10.0.0.1"],
      ["KUBERNETES_SERVICE_PORT", "443"],
      ["KUBERNETES_SERVICE_PORT_HTTPS", "443"],
      ["KUBERNETES_PORT", "tcp://10.0.0.1:443"],
      ["KUBERNETES_PORT_443_TCP", "tcp://10.0.0.1:443"],
      ["KUBERNETES_PORT_443_TCP_PROTO", "tcp"],
      ["KUBERNETES_PORT_443_TCP_PORT", "443"],
      ["KUBERNETES_PORT_443_TCP_ADDR", "10.0.0.1"],
    ]);
  });

  it("names the port variables after the port and brackets an IPv6 host in the URLs", () => {
    const env = kubernetesServiceEnv({ host: "fd00::1", port: 6443 });
    expect(env.get("KUBERNETES_PORT")).toBe("tcp://[fd00::1]:6443");
    expect(env.get("KUBERNETES_PORT_6443_TCP")).toBe("tcp://[fd00::1]:6443");
    expect(env.get("KUBERNETES_PORT_6443_TCP_ADDR")).toBe("fd00::1");
    expect(env.get("KUBERNETES_SERVICE_PORT_HTTPS")).toBe("6443");
  });
});

describe("kubernetesServiceAddressFor", () => {
  it.each([
    ["https://10.1.2.3:6443", { host: "10.1.2.3", port: 6443 }],
    ["https://api.example.com", { host: "api.example.com", port: 443 }],
    ["https://[fd00::5]:8443", { host: "fd00::5", port: 8443 }],
    // A loopback server is the pod's own loopback in a pod network namespace: the node's address instead.
    ["https://127.0.0.1:6443", { host: "192.0.2.7", port: 6443 }],
    ["https://127.8.0.1:6443", { host: "192.0.2.7", port: 6443 }],
    ["https://localhost:7443", { host: "192.0.2.7", port: 7443 }],
    ["https://[::1]:6443", { host: "192.0.2.7", port: 6443 }],
  ])("%s", (server, want) => {
    expect(kubernetesServiceAddressFor(server, "192.0.2.7")).toEqual(want);
  });

  it("throws on a server that is not a URL", () => {
    expect(() => kubernetesServiceAddressFor("not a url", "192.0.2.7")).toThrow(TypeError);
  });
});

describe("makeEnvironmentVariables with the service environment (kubelet_pods.go makeEnvironmentVariables)", () => {
  const serviceEnv = kubernetesServiceEnv({ host: "10.0.0.1", port: 443 });
  const run = (c: Container) => {
    const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u" }, spec: { containers: [c] } };
    return makeEnvironmentVariables(pod, c, { objects: undefined, fieldRef: () => "", nodeAllocatable: { cpuMilli: 1000, memoryBytes: 1024 ** 3, ephemeralStorageBytes: 0 }, serviceEnv });
  };

  it("appends the service variables after the container's own", () => {
    const env = run({ name: "c", env: [{ name: "A", value: "1" }] });
    expect(env[0]).toEqual(["A", "1"]);
    expect(env.slice(1)).toEqual([...serviceEnv]);
  });

  it("expands $(VAR) from the service variables", () => {
    const env = new Map(run({ name: "c", env: [{ name: "API", value: "https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)" }] }));
    expect(env.get("API")).toBe("https://10.0.0.1:443");
  });

  it("keeps the container's value of a name the service also sets, once", () => {
    const env = run({ name: "c", env: [{ name: "KUBERNETES_SERVICE_HOST", value: "mine" }] });
    expect(env.filter(([k]) => k === "KUBERNETES_SERVICE_HOST")).toEqual([["KUBERNETES_SERVICE_HOST", "mine"]]);
  });

  it("sets none without a service environment (standalone mode)", () => {
    const c: Container = { name: "c", env: [{ name: "A", value: "$(KUBERNETES_SERVICE_HOST)" }] };
    const pod: Pod = { metadata: { name: "p", namespace: "ns" }, spec: { containers: [c] } };
    expect(makeEnvironmentVariables(pod, c, { objects: undefined, fieldRef: () => "", nodeAllocatable: { cpuMilli: 1000, memoryBytes: 1, ephemeralStorageBytes: 0 } })).toEqual([["A", "$(KUBERNETES_SERVICE_HOST)"]]);
  });
});
