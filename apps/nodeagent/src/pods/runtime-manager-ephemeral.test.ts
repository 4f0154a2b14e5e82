import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { RuntimeManager, type RuntimeContainer, type RuntimeManagerOptions, type RuntimePodStatus } from "./runtime-manager.js";

// buildPodStatus reads only hostIP (and the optional hooks) of its options.
const manager = new RuntimeManager({ hostIP: "10.0.0.1", log: () => undefined } as unknown as RuntimeManagerOptions);

const instance = (name: string, id: string, state: RuntimeContainer["state"], exitCode = 0): RuntimeContainer => ({
  id,
  sandboxId: "s",
  name,
  restartCount: 0,
  state,
  createdAtMs: 1,
  startedAtMs: 1_700_000_000_000,
  finishedAtMs: state === "exited" ? 1_700_000_001_000 : 0,
  exitCode,
  reason: state === "exited" ? "Completed" : "",
  message: "",
  image: "busybox:1.36",
  imageRef: "sha256:b",
  logPath: "",
  mounts: [],
});

function pod(withInit: boolean): Pod {
  return {
    metadata: { name: "p", namespace: "default", uid: "u" },
    spec: {
      containers: [{ name: "app", image: "busybox:1.36" }],
      ...(withInit ? { initContainers: [{ name: "init", image: "busybox:1.36" }] } : {}),
      ephemeralContainers: [
        { name: "done", image: "busybox:1.36", targetContainerName: "app" },
        { name: "new", image: "busybox:1.36" },
      ],
    },
  };
}

describe("RuntimeManager.buildPodStatus with ephemeral containers (1.23 generateAPIPodStatus)", () => {
  it("reports ephemeralContainerStatuses, never ready, without changing phase or readiness", () => {
    const rs: RuntimePodStatus = { sandboxes: [{ id: "s", ready: true, attempt: 0, createdAtMs: 1, ip: "10.1.0.2" }], containers: [instance("app", "a1", "running"), instance("done", "d1", "exited")] };
    const status = manager.buildPodStatus(pod(false), rs, new Map(), "containerd", undefined);
    expect(status.phase).toBe("Running");
    expect(status.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(status.containerStatuses?.map((c) => c.name)).toEqual(["app"]);
    expect(status.ephemeralContainerStatuses).toEqual([
      expect.objectContaining({ name: "done", ready: false, restartCount: 0, containerID: "containerd://d1", state: { terminated: expect.objectContaining({ exitCode: 0, reason: "Completed" }) } }),
      expect.objectContaining({ name: "new", ready: false, state: { waiting: { reason: "ContainerCreating" } } }),
    ]);
  });

  it("a running ephemeral container is not ready; one not started waits in PodInitializing when the pod has init containers", () => {
    const rs: RuntimePodStatus = {
      sandboxes: [{ id: "s", ready: true, attempt: 0, createdAtMs: 1, ip: "10.1.0.2" }],
      containers: [instance("init", "i1", "exited"), instance("app", "a1", "running"), instance("done", "d1", "running")],
    };
    const status = manager.buildPodStatus(pod(true), rs, new Map(), "containerd", undefined);
    expect(status.ephemeralContainerStatuses?.[0]).toMatchObject({ name: "done", ready: false, state: { running: {} } });
    expect(status.ephemeralContainerStatuses?.[1]?.state).toEqual({ waiting: { reason: "PodInitializing" } });
  });
});
