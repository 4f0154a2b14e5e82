import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SimulatedImageCatalog, SimulatedRuntime } from "./sim-cri.js";

const labels = { "io.kubernetes.pod.uid": "u1" };

async function podWith(command: string[]) {
  const sim = new SimulatedRuntime({ catalog: new SimulatedImageCatalog(), podIP: (n) => `10.128.0.${n + 1}` });
  const rt = sim.runtimeClient();
  const images = sim.imageClient();
  const { podSandboxId } = await rt.runPodSandbox({ config: { metadata: { name: "p", namespace: "default", uid: "u1", attempt: 0 }, labels } });
  await images.pullImage({ image: { image: "busybox" } });
  const { containerId } = await rt.createContainer({ podSandboxId, config: { metadata: { name: "main", attempt: 0 }, image: { image: "busybox" }, command, labels } });
  return { sim, rt, images, podSandboxId, containerId };
}

describe("SimulatedRuntime", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("a sleep 5 container runs 5 s, then exits 0 Completed", async () => {
    const { sim, rt, containerId, podSandboxId } = await podWith(["sh", "-c", "sleep 5"]);
    await rt.startContainer({ containerId });
    expect((await rt.containerStatus({ containerId })).status?.state).toBe("CONTAINER_RUNNING");
    expect(sim.runningContainers).toBe(1);
    await vi.advanceTimersByTimeAsync(4_900);
    expect((await rt.containerStatus({ containerId })).status?.state).toBe("CONTAINER_RUNNING");
    await vi.advanceTimersByTimeAsync(200);
    expect((await rt.containerStatus({ containerId })).status).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 0, reason: "Completed" });
    expect((await rt.podSandboxStatus({ podSandboxId })).status?.network?.ip).toBe("10.128.0.1");
  });

  it("exit 3 exits 3 with reason Error; a stopped container exits 143, 137 without grace", async () => {
    const a = await podWith(["sh", "-c", "exit 3"]);
    await a.rt.startContainer({ containerId: a.containerId });
    await vi.advanceTimersByTimeAsync(1);
    expect((await a.rt.containerStatus({ containerId: a.containerId })).status).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 3, reason: "Error" });
    const b = await podWith(["sleep", "100"]);
    await b.rt.startContainer({ containerId: b.containerId });
    await b.rt.stopContainer({ containerId: b.containerId, timeout: 30 });
    expect((await b.rt.containerStatus({ containerId: b.containerId })).status).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 143 });
    const c = await podWith(["sleep", "100"]);
    await c.rt.startContainer({ containerId: c.containerId });
    await c.rt.stopPodSandbox({ podSandboxId: c.podSandboxId });
    expect((await c.rt.containerStatus({ containerId: c.containerId })).status).toMatchObject({ state: "CONTAINER_EXITED", exitCode: 137 });
  });

  it("lists by label, needs the image pulled, and removes a sandbox with its containers", async () => {
    const { rt, images, podSandboxId } = await podWith(["true"]);
    expect((await rt.listContainers({ filter: { labelSelector: labels } })).containers).toHaveLength(1);
    expect((await rt.listContainers({ filter: { labelSelector: { "io.kubernetes.pod.uid": "other" } } })).containers).toHaveLength(0);
    expect((await images.imageStatus({ image: { image: "busybox" } })).image?.repoTags).toEqual(["busybox:latest"]);
    expect((await images.imageStatus({ image: { image: "nginx" } })).image).toBeNull();
    await expect(rt.createContainer({ podSandboxId, config: { metadata: { name: "x" }, image: { image: "nginx" } } })).rejects.toMatchObject({ code: "NotFound" });
    await rt.removePodSandbox({ podSandboxId });
    expect((await rt.listPodSandbox({})).items).toEqual([]);
    expect((await rt.listContainers({})).containers).toEqual([]);
    await expect(rt.exec({ containerId: "x" })).rejects.toMatchObject({ code: "Unimplemented" });
  });

  it("resolves image references as a runtime does: pulled as busybox:latest, created as busybox (the agent pulls with 1.23's default tag)", async () => {
    const sim = new SimulatedRuntime({ catalog: new SimulatedImageCatalog(), podIP: (n) => `10.128.0.${n + 1}` });
    const rt = sim.runtimeClient();
    const images = sim.imageClient();
    const { podSandboxId } = await rt.runPodSandbox({ config: { metadata: { name: "p", namespace: "default", uid: "u1", attempt: 0 }, labels } });
    await images.pullImage({ image: { image: "busybox:latest" } });
    expect((await images.imageStatus({ image: { image: "docker.io/library/busybox" } })).image).not.toBeNull();
    await expect(rt.createContainer({ podSandboxId, config: { metadata: { name: "a", attempt: 0 }, image: { image: "busybox" }, command: ["true"], labels } })).resolves.toHaveProperty("containerId");
    expect((await images.imageStatus({ image: { image: "busybox:1.36" } })).image).toBeNull();
  });
});

