import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "@skiff/api-types";
import { afterAll, describe, expect, it } from "vitest";
import { readLastStringFromContainerLog, terminationMessage, terminationMessageMount } from "./termination-message.js";

const dir = mkdtempSync(join(tmpdir(), "termination-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pod: Pod = { metadata: { name: "p", namespace: "ns", uid: "u1" }, spec: { containers: [] } };
const logLine = (content: string, tag = "F") => `2026-01-01T00:00:00.000000000Z stdout ${tag} ${content}\n`;

describe("terminationMessageMount", () => {
  it("creates an empty 0666 file per instance under pods/<uid>/containers/<name> and binds it at the path", async () => {
    const c: Container = { name: "main", terminationMessagePath: "/dev/termination-log" };
    const a = await terminationMessageMount(dir, pod, c);
    const b = await terminationMessageMount(dir, pod, c);
    expect(a?.containerPath).toBe("/dev/termination-log");
    expect(a?.hostPath?.startsWith(join(dir, "pods", "u1", "containers", "main"))).toBe(true);
    expect(a?.hostPath).not.toBe(b?.hostPath);
    expect(statSync(a?.hostPath ?? "").mode & 0o777).toBe(0o666);
    expect(await terminationMessageMount(dir, pod, { name: "x", terminationMessagePath: "" })).toBeUndefined();
  });
});

describe("terminationMessage", () => {
  const log = join(dir, "0.log");
  writeFileSync(log, [logLine("first"), logLine("par", "P"), logLine("tial"), logLine("last words")].join(""));

  it("reads the file the container wrote", () => {
    const file = join(dir, "written");
    writeFileSync(file, "all done");
    const c: Container = { name: "main", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" };
    expect(terminationMessage(c, { exitCode: 0, reason: "Completed", logPath: log, mounts: [{ containerPath: "/dev/termination-log", hostPath: file }] })).toBe("all done");
  });

  it("falls back to the end of the log on a failure with an empty file (FallbackToLogsOnError)", () => {
    const empty = join(dir, "empty");
    writeFileSync(empty, "");
    const c: Container = { name: "main", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "FallbackToLogsOnError" };
    const mounts = [{ containerPath: "/dev/termination-log", hostPath: empty }];
    expect(terminationMessage(c, { exitCode: 1, reason: "Error", logPath: log, mounts })).toBe("first\npartial\nlast words\n");
    expect(terminationMessage(c, { exitCode: 0, reason: "Completed", logPath: log, mounts })).toBe("");
    expect(terminationMessage({ ...c, terminationMessagePolicy: "File" }, { exitCode: 1, reason: "Error", logPath: log, mounts })).toBe("");
  });

  it("keeps at most 80 lines and 2048 bytes of the log, and 4096 bytes of the file", () => {
    const long = join(dir, "long.log");
    writeFileSync(long, Array.from({ length: 100 }, (_, i) => logLine(`line ${i}`)).join(""));
    expect(readLastStringFromContainerLog(long).split("\n")[0]).toBe("line 20");
    writeFileSync(long, Array.from({ length: 50 }, () => logLine("x".repeat(100))).join(""));
    expect(Buffer.byteLength(readLastStringFromContainerLog(long))).toBe(2048);
    const big = join(dir, "big");
    writeFileSync(big, `${"a".repeat(5000)}END`);
    const c: Container = { name: "main", terminationMessagePath: "/t" };
    const m = terminationMessage(c, { exitCode: 0, reason: "", logPath: "", mounts: [{ containerPath: "/t", hostPath: big }] });
    expect(m).toHaveLength(4096);
    expect(m.endsWith("END")).toBe(true);
    expect(readFileSync(big, "utf8")).toHaveLength(5003);
  });
});
