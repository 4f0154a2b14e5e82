import { describe, expect, it } from "vitest";
import { objectText, rememberObjectText } from "./object-text.js";

describe("objectText", () => {
  it("is JSON.stringify's text, and the remembered text for an object the watch cache serialised", () => {
    const o = { kind: "Pod", metadata: { name: "a", resourceVersion: "7" } };
    expect(objectText(o)).toBe(JSON.stringify(o));
    const shared = { kind: "Pod", metadata: { name: "b" } };
    rememberObjectText(shared, JSON.stringify(shared));
    expect(objectText(shared)).toBe(JSON.stringify(shared));
    // Remembered per object, not per shape: another object is serialised itself.
    const marker = { kind: "Pod" };
    rememberObjectText(marker, "remembered");
    expect(objectText(marker)).toBe("remembered");
    expect(objectText({ kind: "Pod" })).toBe('{"kind":"Pod"}');
  });
});
