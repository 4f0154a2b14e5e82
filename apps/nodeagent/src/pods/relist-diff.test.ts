import { describe, expect, it } from "vitest";
import { diffRelist, type RelistEntry } from "./relist-diff.js";

const uidOf = (x: { uid?: string }) => x.uid;

describe("diffRelist", () => {
  it("reports every pod on the first relist, nothing on an identical one, and keeps the unchanged entries' objects", () => {
    const list = [
      { id: "c1", state: "CONTAINER_RUNNING", uid: "a" },
      { id: "c2", state: "CONTAINER_RUNNING", uid: "b" },
      { id: "x", state: "CONTAINER_RUNNING", uid: "" },
    ];
    const first = new Set<string>();
    const seen = diffRelist(list, new Map(), uidOf, first);
    expect([...first].sort()).toEqual(["a", "b"]);
    expect([...seen.keys()]).toEqual(["c1", "c2"]);
    const again = new Set<string>();
    const next = diffRelist(list.map((x) => ({ ...x })), seen, uidOf, again);
    expect(again.size).toBe(0);
    expect(next.get("c1")).toBe(seen.get("c1"));
  });

  it("reports the pod of an entry that changed state, appeared, disappeared or moved to another pod", () => {
    const last = new Map<string, RelistEntry>([
      ["c1", { uid: "a", state: "CONTAINER_RUNNING" }],
      ["c2", { uid: "b", state: "CONTAINER_RUNNING" }],
      ["c3", { uid: "c", state: "CONTAINER_RUNNING" }],
      ["c4", { uid: "d", state: "CONTAINER_RUNNING" }],
    ]);
    const changed = new Set<string>();
    diffRelist(
      [
        { id: "c1", state: "CONTAINER_EXITED", uid: "a" },
        { id: "c2", state: "CONTAINER_RUNNING", uid: "b" },
        { id: "c4", state: "CONTAINER_RUNNING", uid: "e" },
        { id: "c5", state: "CONTAINER_CREATED", uid: "f" },
      ],
      last,
      uidOf,
      changed,
    );
    expect([...changed].sort()).toEqual(["a", "c", "d", "e", "f"]);
  });

  it("returns the last map itself when nothing changed, and a new one when only an entry is gone", () => {
    const last = new Map<string, RelistEntry>([
      ["c1", { uid: "a", state: "CONTAINER_RUNNING" }],
      ["c2", { uid: "b", state: "CONTAINER_EXITED" }],
    ]);
    const changed = new Set<string>();
    const same = diffRelist(
      [
        { id: "c2", state: "CONTAINER_EXITED", uid: "b" },
        { id: "x", state: "CONTAINER_RUNNING", uid: "" },
        { id: "c1", state: "CONTAINER_RUNNING", uid: "a" },
      ],
      last,
      uidOf,
      changed,
    );
    expect(same).toBe(last);
    expect(changed.size).toBe(0);
    const gone = diffRelist([{ id: "c1", state: "CONTAINER_RUNNING", uid: "a" }], last, uidOf, changed);
    expect(gone).not.toBe(last);
    expect([...gone.keys()]).toEqual(["c1"]);
    expect([...changed]).toEqual(["b"]);
    expect(last.size).toBe(2);
  });
});
