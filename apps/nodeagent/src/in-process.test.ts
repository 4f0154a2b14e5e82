import { describe, expect, it } from "vitest";
import { startInProcessNodeAgent } from "./in-process.js";

describe("startInProcessNodeAgent refusals", () => {
  it("refuses the container manager's settings it cannot honour (no container manager in-process)", async () => {
    const deps = { cri: undefined, clusterConfig: undefined, stdout: { write: () => true }, stderr: { write: () => true } } as never;
    await expect(startInProcessNodeAgent(["--memory-manager-policy=Static", "--cpu-manager-policy=static", "--agent-cgroups=/agent"], deps)).rejects.toThrow(
      "--agent-cgroups=/agent is not supported by an in-process node agent (it runs no container manager); leave it unset; --memory-manager-policy=Static is not supported by an in-process node agent (it runs no container manager); leave it unset; --cpu-manager-policy=static is not supported",
    );
  });
});
