import { describe, expect, it } from "vitest";
import { logTarget } from "./pod-runtime.js";

// Newest first, as the runtime manager sorts a pod's containers.
const z = { id: "z", name: "main", state: "running" };
const y = { id: "y", name: "main", state: "exited" };
const x = { id: "x", name: "main", state: "exited" };
const side = { id: "s", name: "side", state: "running" };

describe("logTarget", () => {
  it("reads the container the status names while the runtime has it", () => {
    expect(logTarget([z, y, x, side], "main", "x", true)).toBe(x);
    expect(logTarget([z, y, side], "main", "z", false)).toBe(z);
  });

  it("answers from the runtime when a restart removed the container a status a sync behind names (kubectl logs --previous said 'no longer exists' under load)", () => {
    // The status still says previous = x; the runtime started z and removed x, keeping y.
    expect(logTarget([z, y, side], "main", "x", true)).toBe(y);
    // A crash-looping container between restarts: its newest dead instance is the previous one.
    expect(logTarget([y, side], "main", "x", true)).toBe(y);
    expect(logTarget([z, y, side], "main", "gone", false)).toBe(z);
  });

  it("finds nothing when the runtime has no such instance", () => {
    expect(logTarget([z, side], "main", "x", true)).toBeUndefined();
    expect(logTarget([side], "main", "x", false)).toBeUndefined();
  });
});
