import { describe, expect, it } from "vitest";
import { handleHealth, logCheck, pingCheck } from "./index.js";
import type { HealthCheck } from "./index.js";

const storage = (ok: boolean): HealthCheck => ({
  name: "storage",
  check() {
    if (!ok) throw new Error("db down");
  },
});

describe("handleHealth", () => {
  it("answers ok when healthy", async () => {
    const r = await handleHealth("readyz", "/readyz", {}, [pingCheck, logCheck, storage(true)]);
    expect(r).toMatchObject({ status: 200, body: "ok" });
    expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
  });
  it("verbose lists checks", async () => {
    const r = await handleHealth("livez", "/livez", { verbose: "" }, [pingCheck, storage(true)]);
    expect(r.body).toBe("[+]ping ok\n[+]storage ok\nlivez check passed\n");
  });
  it("failing check → 500 with reason withheld", async () => {
    const r = await handleHealth("healthz", "/healthz", {}, [pingCheck, storage(false)]);
    expect(r.status).toBe(500);
    expect(r.body).toBe("[+]ping ok\n[-]storage failed: reason withheld\nhealthz check failed\n");
  });
  it("exclude skips a check and warns on unknown names", async () => {
    const r = await handleHealth("readyz", "/readyz", { verbose: "", exclude: ["storage", "nope"] }, [pingCheck, storage(false)]);
    expect(r.status).toBe(200);
    expect(r.body).toBe('[+]ping ok\n[+]storage excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n');
  });
  it("per-check paths", async () => {
    expect(await handleHealth("readyz", "/readyz/ping", {}, [pingCheck])).toMatchObject({ status: 200, body: "ok" });
    expect((await handleHealth("readyz", "/readyz/storage", {}, [storage(false)])).status).toBe(500);
    expect((await handleHealth("readyz", "/readyz/missing", {}, [pingCheck])).status).toBe(404);
    expect((await handleHealth("readyz", "/other", {}, [pingCheck])).status).toBe(404);
  });
});
