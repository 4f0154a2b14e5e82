import { describe, expect, it } from "vitest";
import { tuneHeap } from "./heap.js";

describe("tuneHeap", () => {
  it("leaves an operator's --heap-growing-percent alone, from the command line or NODE_OPTIONS", () => {
    expect(tuneHeap(["--heap-growing-percent=30"], "")).toBe(false);
    expect(tuneHeap([], "--max-old-space-size=512 --heap_growing_percent=30")).toBe(false);
    expect(tuneHeap(["--heap-growing-percent", "30"], "")).toBe(false);
  });
  it("sets it otherwise (V8 accepts the flag at run time)", () => {
    expect(tuneHeap(["--conditions=x"], "--max-old-space-size=512")).toBe(true);
  });
});
