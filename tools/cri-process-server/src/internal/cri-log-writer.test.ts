import { mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { parseCRILogLine } from "@skiff/cri-api";
import { afterAll, describe, expect, it } from "vitest";
import { CRILineSplitter, CRILogFile } from "./cri-log-writer.js";

function collect(maxLineBytes = 16) {
  const lines: string[] = [];
  let t = 0n;
  const splitter = new CRILineSplitter("stdout", { write: (line) => lines.push(line.toString("latin1")) }, () => ++t * 1_000_000_000n, maxLineBytes);
  return { splitter, lines, tags: () => lines.map((l) => l.split(" ").slice(2).join(" ").replace(/\n$/, "")) };
}

describe("CRILineSplitter", () => {
  it("writes one F line per newline-terminated line, across chunk boundaries", () => {
    const { splitter, lines, tags } = collect();
    splitter.push(Buffer.from("hel"));
    splitter.push(Buffer.from("lo\nwor"));
    splitter.push(Buffer.from("ld\n\n"));
    splitter.end();
    expect(tags()).toEqual(["F hello", "F world", "F "]);
    expect(lines[0]).toBe("1970-01-01T00:00:01Z stdout F hello\n");
  });

  it("writes output that ends without a newline as a P line at the end", () => {
    const { splitter, tags } = collect();
    splitter.push(Buffer.from("done\nno newline"));
    expect(tags()).toEqual(["F done"]);
    splitter.end();
    expect(tags()).toEqual(["F done", "P no newline"]);
  });

  it("cuts lines longer than the limit into P chunks followed by the rest", () => {
    const { splitter, tags } = collect(4);
    splitter.push(Buffer.from("abcdefghij\nabcd\nabcde\n"));
    splitter.end();
    expect(tags()).toEqual(["P abcd", "P efgh", "F ij", "F abcd", "P abcd", "F e"]);
  });

  it("drops the \\r of \\r\\n line ends", () => {
    const { splitter, tags } = collect();
    splitter.push(Buffer.from("dos\r\nkeep\rmid\n"));
    splitter.end();
    expect(tags()).toEqual(["F dos", "F keep\rmid"]);
  });

  it("keeps a \r\n together when a cut falls between them", () => {
    const { splitter, tags } = collect(4);
    splitter.push(Buffer.from("abc\r\nabcd\r\n"));
    splitter.end();
    expect(tags()).toEqual(["F abc", "P abcd", "F "]);
  });

  it("writes nothing for no output", () => {
    const { splitter, lines } = collect();
    splitter.end();
    expect(lines).toEqual([]);
  });

  it("loses no bytes however the output is chunked", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r"), maxLength: 200 }), fc.array(fc.nat(40)), (text, cuts) => {
        const { splitter, lines } = collect(8);
        const bytes = Buffer.from(text, "latin1");
        let at = 0;
        for (const cut of cuts) {
          splitter.push(bytes.subarray(at, Math.min(bytes.length, at + cut)));
          at = Math.min(bytes.length, at + cut);
        }
        splitter.push(bytes.subarray(at));
        splitter.end();
        let rebuilt = "";
        for (const line of lines) {
          const parsed = parseCRILogLine(line);
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          expect(Buffer.byteLength(parsed.value.content, "latin1")).toBeLessThanOrEqual(8);
          rebuilt += parsed.value.content + (parsed.value.partial ? "" : "\n");
        }
        const expected = text.replace(/\r\n/g, "\n");
        // A final P line has no newline, like the output.
        expect(rebuilt).toBe(expected);
      }),
    );
  });
});

describe("CRILogFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "skiff-cri-logfile-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("creates parent directories, appends, and reopens after rotation", async () => {
    const path = join(dir, "pod", "c", "0.log");
    const file = await CRILogFile.open(path);
    file.write(Buffer.from("one\n"));
    await file.reopen();
    file.write(Buffer.from("two\n"));
    renameSync(path, `${path}.1`);
    await file.reopen();
    file.write(Buffer.from("three\n"));
    await file.close();
    expect(readFileSync(`${path}.1`, "utf8")).toBe("one\ntwo\n");
    expect(readFileSync(path, "utf8")).toBe("three\n");
  });

  it("fails to open under a path that is a file", async () => {
    const path = join(dir, "pod", "c", "0.log", "nested.log");
    await expect(CRILogFile.open(path)).rejects.toThrow();
  });
});
