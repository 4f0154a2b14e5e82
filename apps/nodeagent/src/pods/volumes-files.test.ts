import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Pod } from "@skiff/api-types";
import { formatGoQuoted } from "@skiff/flags";
import { checkHostPathType, downwardAPIFileContent, formatDownwardMap, resolveResourceFieldRef, writeVolumeFilesAtomically } from "./volumes-files.js";

const dir = mkdtempSync(join(tmpdir(), "skiff-vf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const node = { cpuMilli: 4000, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 0 };

describe("formatGoQuoted / formatDownwardMap", () => {
  it("quotes as Go's %q", () => {
    expect(formatGoQuoted('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(formatGoQuoted("x\ny\tz\x01\x7f")).toBe('"x\\ny\\tz\\x01\\x7f"');
    expect(formatGoQuoted("héllo ☃")).toBe('"héllo ☃"');
  });

  it("is JSON-compatible for printable ASCII", () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(..." abcXYZ019-_./:'\"\\") }), (s) => formatGoQuoted(s) === JSON.stringify(s)));
  });

  it("formats a map sorted, one key=\"value\" per line, no trailing newline", () => {
    expect(formatDownwardMap({ zone: "b", app: "web", "example.io/x": 'q"' })).toBe('app="web"\nexample.io/x="q\\""\nzone="b"');
    expect(formatDownwardMap({})).toBe("");
  });
});

describe("downwardAPIFileContent", () => {
  const pod: Pod = {
    metadata: { name: "p", namespace: "ns", uid: "u1", labels: { app: "web", tier: "fe" }, annotations: { note: "hi" } },
    spec: { containers: [{ name: "main", image: "x", resources: { limits: { cpu: "500m", memory: "64Mi" }, requests: { cpu: "250m" } } }, { name: "side", image: "x" }] },
  };

  it("renders the metadata fields", () => {
    const f = (fieldPath: string) => downwardAPIFileContent(pod, { path: "x", fieldRef: { fieldPath } }, node);
    expect(f("metadata.name")).toBe("p");
    expect(f("metadata.namespace")).toBe("ns");
    expect(f("metadata.uid")).toBe("u1");
    expect(f("metadata.labels")).toBe('app="web"\ntier="fe"');
    expect(f("metadata.annotations")).toBe('note="hi"');
    expect(f("metadata.labels['tier']")).toBe("fe");
    expect(f("metadata.annotations['none']")).toBe("");
    expect(() => f("spec.nodeName")).toThrow("unsupported fieldPath: spec.nodeName");
  });

  it("renders resourceFieldRef with divisor and node fallback", () => {
    const r = (containerName: string, resource: string, divisor?: string) => downwardAPIFileContent(pod, { path: "x", resourceFieldRef: { containerName, resource, ...(divisor ? { divisor } : {}) } }, node);
    expect(r("main", "limits.cpu")).toBe("1"); // 500m rounded up to whole cores
    expect(r("main", "limits.cpu", "1m")).toBe("500");
    expect(r("main", "requests.cpu", "1m")).toBe("250");
    expect(r("main", "limits.memory", "1Mi")).toBe("64");
    expect(r("side", "limits.cpu")).toBe("4");
    expect(r("side", "limits.memory")).toBe(String(8 * 1024 ** 3));
    expect(r("side", "requests.memory")).toBe("0");
    expect(() => r("ghost", "limits.cpu")).toThrow('container "ghost" not found');
    expect(() => r("main", "limits.gpu")).toThrow("unsupported container resource : limits.gpu");
    expect(() => resolveResourceFieldRef({ name: "c" }, "limits.cpu", "0", node)).toThrow("invalid divisor");
  });

  it("renders hugepages resourceFieldRefs (DownwardAPIHugePages), 0 when the container sets none", () => {
    const c = { name: "c", resources: { limits: { "hugepages-2Mi": "4Mi", memory: "64Mi" }, requests: { "hugepages-2Mi": "4Mi" } } };
    expect(resolveResourceFieldRef(c, "limits.hugepages-2Mi", undefined, node)).toBe(String(4 * 1024 ** 2));
    expect(resolveResourceFieldRef(c, "requests.hugepages-2Mi", "1Mi", node)).toBe("4");
    expect(resolveResourceFieldRef(c, "limits.hugepages-1Gi", undefined, node)).toBe("0");
  });

  it("refuses an item without a source", () => {
    expect(() => downwardAPIFileContent(pod, { path: "x" }, node)).toThrow("neither fieldRef nor resourceFieldRef");
  });
});

describe("writeVolumeFilesAtomically", () => {
  it("writes through ..data, keeps unchanged payloads, replaces changed ones", async () => {
    const d = join(dir, "atomic");
    expect(await writeVolumeFilesAtomically(d, [{ path: "labels", data: "a", mode: 0o644 }, { path: "sub/name", data: "n", mode: 0o600 }])).toBe(true);
    expect(readFileSync(join(d, "labels"), "utf8")).toBe("a");
    expect(readFileSync(join(d, "sub/name"), "utf8")).toBe("n");
    expect(lstatSync(join(d, "labels")).isSymbolicLink()).toBe(true);
    expect(statSync(join(d, "sub/name")).mode & 0o777).toBe(0o600);
    const first = readlinkSync(join(d, "..data"));
    expect(await writeVolumeFilesAtomically(d, [{ path: "labels", data: "a", mode: 0o644 }, { path: "sub/name", data: "n", mode: 0o600 }])).toBe(false);
    expect(await writeVolumeFilesAtomically(d, [{ path: "labels", data: "b", mode: 0o644 }])).toBe(true);
    expect(readFileSync(join(d, "labels"), "utf8")).toBe("b");
    expect(readlinkSync(join(d, "..data"))).not.toBe(first);
    expect(readdirSync(d).sort()).toEqual(["..data", readlinkSync(join(d, "..data")), "labels"].sort());
  });

  it("refuses paths leaving the volume", async () => {
    await expect(writeVolumeFilesAtomically(join(dir, "bad"), [{ path: "../x", data: "", mode: 0o644 }])).rejects.toThrow("invalid path: must not contain '..': ../x");
    await expect(writeVolumeFilesAtomically(join(dir, "bad"), [{ path: "/etc/x", data: "", mode: 0o644 }])).rejects.toThrow("invalid path: must be relative path: /etc/x");
  });
});

describe("checkHostPathType", () => {
  it("checks nothing for the empty type", async () => {
    await expect(checkHostPathType(join(dir, "nothing-here"), "")).resolves.toBeUndefined();
  });

  it("creates for DirectoryOrCreate / FileOrCreate and checks existing ones", async () => {
    const d = join(dir, "hp", "a", "b");
    await checkHostPathType(d, "DirectoryOrCreate");
    expect(statSync(d).isDirectory()).toBe(true);
    expect(statSync(d).mode & 0o777).toBe(0o755 & ~process.umask());
    await checkHostPathType(d, "Directory");
    const f = join(d, "f.txt");
    await checkHostPathType(f, "FileOrCreate");
    expect(statSync(f).isFile()).toBe(true);
    await checkHostPathType(f, "File");
    await expect(checkHostPathType(f, "DirectoryOrCreate")).rejects.toThrow(`hostPath type check failed: ${f} is not a directory`);
    await expect(checkHostPathType(d, "FileOrCreate")).rejects.toThrow(`hostPath type check failed: ${d} is not a file`);
    await expect(checkHostPathType(join(dir, "missing"), "Directory")).rejects.toThrow("is not a directory");
    await expect(checkHostPathType(join(dir, "no", "parent", "f"), "FileOrCreate")).rejects.toThrow("ENOENT");
  });

  it("checks sockets and devices, and refuses unknown types", async () => {
    const sock = join(dir, "s.sock");
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(sock, r));
    try {
      await checkHostPathType(sock, "Socket");
    } finally {
      srv.close();
    }
    await checkHostPathType("/dev/null", "CharDevice");
    writeFileSync(join(dir, "plain"), "");
    await expect(checkHostPathType(join(dir, "plain"), "Socket")).rejects.toThrow("is not a socket file");
    await expect(checkHostPathType("/dev/null", "BlockDevice")).rejects.toThrow("hostPath type check failed: /dev/null is not a block device");
    await expect(checkHostPathType(join(dir, "plain"), "CharDevice")).rejects.toThrow("is not a character device");
    mkdirSync(join(dir, "d2"), { recursive: true });
    await expect(checkHostPathType(join(dir, "d2"), "Whatever")).rejects.toThrow("Whatever is an invalid volume type");
  });
});
