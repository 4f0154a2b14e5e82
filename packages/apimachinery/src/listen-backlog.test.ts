import { describe, expect, it } from "vitest";
import { listenBacklog } from "./listen-backlog.js";

describe("listenBacklog", () => {
  it("is the kernel's somaxconn, as Go's listeners use", () => {
    expect(listenBacklog(() => "4096\n")).toBe(4096);
    expect(listenBacklog(() => "1024")).toBe(1024);
  });

  it("caps a huge somaxconn at 65535 and falls back to Go's 128 when it cannot be read or parsed", () => {
    expect(listenBacklog(() => "1000000")).toBe(65_535);
    expect(listenBacklog(() => "")).toBe(128);
    expect(listenBacklog(() => "0")).toBe(128);
    expect(listenBacklog(() => "x")).toBe(128);
    expect(
      listenBacklog(() => {
        throw new Error("ENOENT");
      }),
    ).toBe(128);
  });

  it("reads this machine's /proc/sys/net/core/somaxconn by default", () => {
    expect(listenBacklog()).toBeGreaterThanOrEqual(128);
  });
});
