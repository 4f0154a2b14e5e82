import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "@skiff/api-types";
import { afterAll, describe, expect, it } from "vitest";
import { etcHostsMount, managedHostsFileContent, nodeHostsFileContent } from "./etc-hosts.js";

// Expected texts from pkg/kubelet/kubelet_pods_test.go (TestManagedHostsFileContent, TestNodeHostsFileContent), v1.23.

const localhost = "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n";

describe("managedHostsFileContent", () => {
  it("writes the pod IP with the host name", () => {
    expect(managedHostsFileContent(["123.45.67.89"], "podFoo", "")).toBe(`${localhost}123.45.67.89\tpodFoo\n`);
  });
  it("writes the FQDN with a domain", () => {
    expect(managedHostsFileContent(["203.0.113.1"], "podFoo", "domainFoo")).toBe(`${localhost}203.0.113.1\tpodFoo.domainFoo\tpodFoo\n`);
  });
  it("appends host aliases, one line per IP", () => {
    const aliases = [
      { ip: "123.45.67.89", hostnames: ["foo", "bar", "baz"] },
      { ip: "456.78.90.123", hostnames: ["park", "doo", "boo"] },
    ];
    expect(managedHostsFileContent(["203.0.113.1"], "podFoo", "domainFoo", aliases)).toBe(
      `${localhost}203.0.113.1\tpodFoo.domainFoo\tpodFoo\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n456.78.90.123\tpark\tdoo\tboo\n`,
    );
  });
  it("writes one line per pod IP (dual stack)", () => {
    expect(managedHostsFileContent(["203.0.113.1", "fd00::6"], "podFoo", "domainFoo")).toBe(`${localhost}203.0.113.1\tpodFoo.domainFoo\tpodFoo\nfd00::6\tpodFoo.domainFoo\tpodFoo\n`);
  });
});

describe("nodeHostsFileContent", () => {
  it("keeps the node's file under the host-network header and adds aliases", () => {
    const node = "# hosts file for testing.\n127.0.0.1\tlocalhost\n";
    expect(nodeHostsFileContent(node)).toBe(`# Kubernetes-managed hosts file (host network).\n${node}`);
    expect(nodeHostsFileContent(node, [{ ip: "1.2.3.4", hostnames: ["a"] }])).toBe(`# Kubernetes-managed hosts file (host network).\n${node}\n# Entries added by HostAliases.\n1.2.3.4\ta\n`);
  });
});

describe("etcHostsMount", () => {
  const dir = mkdtempSync(join(tmpdir(), "etc-hosts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const c: Container = { name: "main" };
  const pod: Pod = { metadata: { name: "web", namespace: "ns", uid: "u" }, spec: { containers: [c] } };

  it("writes <podDir>/etc-hosts and mounts it read-write at /etc/hosts", async () => {
    const m = await etcHostsMount(pod, c, { podDir: join(dir, "u"), podIPs: ["10.1.2.3"], hostname: "web", domain: "" });
    expect(m).toEqual({ containerPath: "/etc/hosts", hostPath: join(dir, "u", "etc-hosts"), readonly: false, selinuxRelabel: true });
    expect(readFileSync(join(dir, "u", "etc-hosts"), "utf8")).toBe(`${localhost}10.1.2.3\tweb\n`);
  });
  it("mounts nothing without a pod IP or when the container mounts /etc/hosts itself", async () => {
    expect(await etcHostsMount(pod, c, { podDir: dir, podIPs: [], hostname: "web", domain: "" })).toBeUndefined();
    expect(await etcHostsMount(pod, { name: "x", volumeMounts: [{ name: "h", mountPath: "/etc/hosts" }] }, { podDir: dir, podIPs: ["10.1.2.3"], hostname: "web", domain: "" })).toBeUndefined();
  });
  it("copies the node's file for host-network pods", async () => {
    const nodeHosts = join(dir, "node-hosts");
    writeFileSync(nodeHosts, "127.0.0.1 localhost\n");
    const hostPod: Pod = { ...pod, spec: { containers: [c], hostNetwork: true } };
    await etcHostsMount(hostPod, c, { podDir: join(dir, "h"), podIPs: ["192.0.2.1"], hostname: "web", domain: "", nodeHostsPath: nodeHosts });
    expect(readFileSync(join(dir, "h", "etc-hosts"), "utf8")).toBe("# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n");
  });
});
