import { describe, it, expect } from "vitest";
import { serveHealthz, serveHealthzCheck, withPing, pingCheck } from "./healthz.js";
import type { HealthCheck } from "../agent-view.js";

const ok: HealthCheck = { name: "log", check: () => undefined };
const bad: HealthCheck = {
  name: "syncloop",
  check: async () => {
    throw new Error("sync loop stalled");
  },
};

describe("serveHealthz", () => {
  it("answers ok, or the verbose list", async () => {
    expect(await serveHealthz([pingCheck, ok], new URLSearchParams())).toEqual({ statusCode: 200, body: "ok" });
    expect(await serveHealthz([pingCheck, ok], new URLSearchParams("verbose"))).toEqual({ statusCode: 200, body: "[+]ping ok\n[+]log ok\nhealthz check passed\n" });
  });

  it("withholds the reason of a failing check and answers 500", async () => {
    const failures: string[] = [];
    const answer = await serveHealthz([pingCheck, bad], new URLSearchParams(), (n, e) => failures.push(`${n}: ${e.message}`));
    expect(answer).toEqual({ statusCode: 500, body: "[+]ping ok\n[-]syncloop failed: reason withheld\nhealthz check failed\n" });
    expect(failures).toEqual(["syncloop: sync loop stalled"]);
  });

  it("excludes checks and warns about unknown exclusions", async () => {
    const answer = await serveHealthz([pingCheck, bad], new URLSearchParams("exclude=syncloop&exclude=nope&verbose"));
    expect(answer).toEqual({ statusCode: 200, body: '[+]ping ok\n[+]syncloop excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n' });
  });
});

describe("serveHealthzCheck", () => {
  it("runs one named check", async () => {
    expect(await serveHealthzCheck([pingCheck, bad], "ping")).toEqual({ statusCode: 200, body: "ok" });
    expect(await serveHealthzCheck([pingCheck, bad], "syncloop")).toEqual({ statusCode: 500, body: "internal server error: sync loop stalled\n" });
    expect(await serveHealthzCheck([pingCheck], "x")).toBeUndefined();
  });

  it("adds ping once", () => {
    expect(withPing([ok]).map((c) => c.name)).toEqual(["ping", "log"]);
    expect(withPing([pingCheck, ok]).map((c) => c.name)).toEqual(["ping", "log"]);
  });
});
