import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatCRILogLine } from "@skiff/cri-api";
import { buildContainerLogPath, buildPodLogsDirectory, readContainerLog, rotateContainerLog } from "./logs.js";

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString();
  return out;
}

const line = (sec: number, content: string, partial = false, stream: "stdout" | "stderr" = "stdout") =>
  formatCRILogLine({ timeNs: BigInt(sec) * 1_000_000_000n + 5n, stream, partial, content }).toString();

describe("log paths", () => {
  it("follow the kubelet's layout", () => {
    expect(buildPodLogsDirectory("/var/log/pods", "ns", "web", "u1")).toBe("/var/log/pods/ns_web_u1");
    expect(buildContainerLogPath("main", 3)).toBe("main/3.log");
  });
});

describe("readContainerLog", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skiff-log-"));
    file = join(dir, "0.log");
    writeFileSync(file, line(100, "one") + line(200, "tw", true) + line(200, "o") + "garbage line\n" + line(300, "three", false, "stderr"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const ctx = { isRunning: async () => false, nowMs: () => 301_000 };

  it("returns the message text, joining partial lines and skipping garbage", async () => {
    expect(await readAll(readContainerLog(file, {}, ctx))).toBe("one\ntwo\nthree\n");
  });

  it("supports timestamps, tail, since and limitBytes", async () => {
    expect(await readAll(readContainerLog(file, { timestamps: true, tailLines: 1 }, ctx))).toBe("1970-01-01T00:05:00.000000005Z three\n");
    // Tail counts raw file lines, as the kubelet (the garbage line counts, then is skipped).
    expect(await readAll(readContainerLog(file, { tailLines: 3 }, ctx))).toBe("o\nthree\n");
    expect(await readAll(readContainerLog(file, { tailLines: 0 }, ctx))).toBe("");
    expect(await readAll(readContainerLog(file, { sinceSeconds: 150 }, ctx))).toBe("two\nthree\n");
    expect(await readAll(readContainerLog(file, { limitBytes: 6 }, ctx))).toBe("one\ntw");
  });

  it("follows new lines until the container stops", async () => {
    let running = true;
    const stream = readContainerLog(file, { follow: true, tailLines: 0 }, { isRunning: async () => running, pollMs: 10 });
    const collected = readAll(stream);
    await new Promise((r) => setTimeout(r, 50));
    appendFileSync(file, line(400, "four"));
    await new Promise((r) => setTimeout(r, 50));
    running = false;
    expect(await collected).toBe("four\n");
  });
});

describe("rotateContainerLog", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skiff-rot-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("does nothing below the size limit", async () => {
    const log = join(dir, "0.log");
    writeFileSync(log, "small");
    let reopened = 0;
    expect(await rotateContainerLog({ logPath: log, maxSizeBytes: 100, maxFiles: 3, reopen: async () => void reopened++ })).toBe(false);
    expect(reopened).toBe(0);
  });

  it("renames, reopens, compresses older files and keeps maxFiles in all", async () => {
    const log = join(dir, "0.log");
    let reopened = 0;
    const reopen = async () => {
      reopened++;
      writeFileSync(log, "");
    };
    for (let i = 0; i < 4; i++) {
      writeFileSync(log, `gen${i}-`.repeat(20));
      expect(await rotateContainerLog({ logPath: log, maxSizeBytes: 50, maxFiles: 3, reopen, now: new Date(Date.UTC(2024, 0, 1, 0, 0, i)) })).toBe(true);
    }
    expect(reopened).toBe(4);
    const files = readdirSync(dir).sort();
    // current + one compressed + the newest rotated (uncompressed) = maxFiles
    expect(files).toEqual(["0.log", "0.log.20240101-000002.gz", "0.log.20240101-000003"]);
    expect(gunzipSync(readFileSync(join(dir, "0.log.20240101-000002.gz"))).toString()).toBe("gen2-".repeat(20));
  });

  it("renames back when the runtime cannot reopen", async () => {
    const log = join(dir, "0.log");
    writeFileSync(log, "x".repeat(100));
    await expect(rotateContainerLog({ logPath: log, maxSizeBytes: 10, maxFiles: 2, reopen: async () => Promise.reject(new Error("not running")) })).rejects.toThrow("not running");
    expect(existsSync(log)).toBe(true);
    expect(readdirSync(dir)).toEqual(["0.log"]);
  });
});
