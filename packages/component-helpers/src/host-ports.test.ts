import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { hostPortsConflict, hostPortsFit, podHostPorts } from "./host-ports.js";

type Port = { containerPort: number; hostPort?: number; hostIP?: string; protocol?: "TCP" | "UDP" | "SCTP" };
const pod = (ports: Port[], initPorts: Port[] = []): Pod => ({
  metadata: { name: "p" },
  spec: { containers: [{ name: "c", image: "i", ports }], ...(initPorts.length > 0 ? { initContainers: [{ name: "init", image: "i", ports: initPorts }] } : {}) },
});

describe("podHostPorts (1.23 getContainerPorts)", () => {
  it("app containers' ports with a host port, defaults filled; init containers and host port 0 take none", () => {
    expect(podHostPorts(pod([{ containerPort: 80, hostPort: 8080 }, { containerPort: 53, hostPort: 53, protocol: "UDP", hostIP: "127.0.0.1" }, { containerPort: 9000 }], [{ containerPort: 1, hostPort: 7000 }]))).toEqual([
      { ip: "0.0.0.0", protocol: "TCP", port: 8080 },
      { ip: "127.0.0.1", protocol: "UDP", port: 53 },
    ]);
  });
});

describe("hostPortsConflict / hostPortsFit (1.23 HostPortInfo.CheckConflict)", () => {
  it.each<[string, Port, Port, boolean]>([
    ["same port, both on every address", { containerPort: 1, hostPort: 80 }, { containerPort: 1, hostPort: 80 }, true],
    ["another port", { containerPort: 1, hostPort: 80 }, { containerPort: 1, hostPort: 81 }, false],
    ["another protocol", { containerPort: 1, hostPort: 80 }, { containerPort: 1, hostPort: 80, protocol: "UDP" }, false],
    ["two different IPs", { containerPort: 1, hostPort: 80, hostIP: "127.0.0.1" }, { containerPort: 1, hostPort: 80, hostIP: "127.0.0.2" }, false],
    ["one IP and 0.0.0.0", { containerPort: 1, hostPort: 80, hostIP: "127.0.0.1" }, { containerPort: 1, hostPort: 80 }, true],
    ["0.0.0.0 and one IP", { containerPort: 1, hostPort: 80 }, { containerPort: 1, hostPort: 80, hostIP: "10.0.0.1" }, true],
    ["the same IP", { containerPort: 1, hostPort: 80, hostIP: "10.0.0.1" }, { containerPort: 1, hostPort: 80, hostIP: "10.0.0.1" }, true],
  ])("%s", (_n, a, b, want) => {
    const [pa] = podHostPorts(pod([a]));
    const [pb] = podHostPorts(pod([b]));
    expect(hostPortsConflict(pa!, pb!)).toBe(want);
    expect(hostPortsFit(podHostPorts(pod([a])), [pod([b])])).toBe(!want);
  });

  it("no wanted ports always fit; an init container's port on the node is not taken", () => {
    expect(hostPortsFit([], [pod([{ containerPort: 1, hostPort: 80 }])])).toBe(true);
    expect(hostPortsFit(podHostPorts(pod([{ containerPort: 1, hostPort: 80 }])), [pod([], [{ containerPort: 1, hostPort: 80 }])])).toBe(true);
  });
});
