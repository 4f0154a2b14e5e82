import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";

describe("EventQueue", () => {
  it("hands items out in order and counts the pending ones", () => {
    const q = new EventQueue<number>();
    for (let i = 0; i < 3000; i++) q.push(i);
    expect(q.size).toBe(3000);
    for (let i = 0; i < 3000; i++) expect(q.take()).toBe(i);
    expect(q.size).toBe(0);
    expect(q.take()).toBeUndefined();
  });

  it("replaces only a pending last item", () => {
    const q = new EventQueue<string>();
    q.replaceLastPending("x");
    expect(q.size).toBe(0);
    q.push("a");
    expect(q.lastPending()).toBe("a");
    q.replaceLastPending("b");
    expect(q.take()).toBe("b");
    expect(q.lastPending()).toBeUndefined();
  });

  it("clear drops pending items; wake resumes every waiter", async () => {
    const q = new EventQueue<number>();
    q.push(1);
    q.clear();
    expect(q.size).toBe(0);
    let woken = 0;
    const waits = [q.wait().then(() => woken++), q.wait().then(() => woken++)];
    q.wake();
    await Promise.all(waits);
    expect(woken).toBe(2);
  });
});
