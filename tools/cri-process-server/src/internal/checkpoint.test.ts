import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointVersion, parseStartTime, processAlive, processStartTime, readRecord, RecordWriter, writeRecord } from "./checkpoint.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "skiff-checkpoint-"));
  dirs.push(d);
  return d;
}

describe("parseStartTime", () => {
  it("reads field 22 past a command name with spaces and parentheses", () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    expect(parseStartTime(`123 (a (b) c) ${fields.join(" ")}`)).toBe("22");
    expect(parseStartTime("garbage")).toBeUndefined();
  });
});

describe("processStartTime / processAlive", () => {
  it("identifies this process and refuses another start time or a missing PID", async () => {
    const start = await processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(await processAlive({ pid: process.pid, startTime: start ?? "" })).toBe(true);
    expect(await processAlive({ pid: process.pid, startTime: `${start ?? ""}1` })).toBe(false);
    expect(await processStartTime(2 ** 22 + 1)).toBeUndefined();
  });
});

describe("records", () => {
  it("round-trips bigints as strings and leaves no temporary file", async () => {
    const d = await tempDir();
    await writeRecord(join(d, "r.json"), { version: checkpointVersion, at: 5n });
    expect(await readRecord(join(d, "r.json"))).toEqual({ version: checkpointVersion, at: "5" });
    expect(await readdir(d)).toEqual(["r.json"]);
  });

  it("says why a record cannot be used, and undefined when there is none", async () => {
    const d = await tempDir();
    expect(await readRecord(join(d, "none.json"))).toBeUndefined();
    await writeFile(join(d, "bad.json"), "{half");
    expect(await readRecord(join(d, "bad.json"))).toBeInstanceOf(Error);
    await writeFile(join(d, "old.json"), JSON.stringify({ version: 0 }));
    expect(String(await readRecord(join(d, "old.json")))).toContain("checkpoint version 0");
  });

  it("RecordWriter writes the newest state in order and skips writes after a removal", async () => {
    const d = await tempDir();
    const errors: unknown[] = [];
    const w = new RecordWriter((e) => errors.push(e));
    let state = { version: checkpointVersion, n: 1 };
    void w.write(join(d, "c.json"), () => state);
    state = { version: checkpointVersion, n: 2 };
    await w.write(join(d, "c.json"), () => state);
    expect(await readRecord(join(d, "c.json"))).toEqual({ version: checkpointVersion, n: 2 });
    let removed = false;
    void w.remove(join(d, "c.json")).then(() => (removed = true));
    await w.write(join(d, "c.json"), () => (removed ? undefined : state));
    expect(await readdir(d)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
