import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Pod } from "@skiff/api-types";
import { HttpSource } from "./http-source.js";

const podJSON = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "i" }] } });

describe("HttpSource", () => {
  let server: Server;
  let url: string;
  let status = 200;
  let body = "";
  let seenHeaders: string[] = [];
  beforeEach(async () => {
    server = createServer((req, res) => {
      seenHeaders = req.headers["x-a"] === undefined ? [] : String(req.headers["x-a"]).split(", ");
      res.statusCode = status;
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
  });

  it("sets pods, keeps them on errors and identical bodies, clears them on an empty body", async () => {
    const sets: Pod[][] = [];
    const logs: string[] = [];
    const src = new HttpSource({ url, headers: { "X-A": ["1", "2"] }, nodeName: "n", periodMs: 60_000, log: (m) => logs.push(m) }, (p) => sets.push(p));
    body = podJSON("a");
    expect((await src.poll()).kind).toBe("set");
    expect(seenHeaders).toEqual(["1", "2"]);
    expect(sets.at(-1)?.map((p) => p.metadata?.name)).toEqual(["a-n"]);
    expect((await src.poll()).kind).toBe("keep");
    status = 500;
    expect(await src.poll()).toMatchObject({ kind: "error", message: expect.stringContaining("500") });
    expect(sets).toHaveLength(1);
    status = 200;
    body = "not: [valid";
    expect((await src.poll()).kind).toBe("error");
    expect(sets).toHaveLength(1);
    body = "";
    expect(await src.poll()).toMatchObject({ kind: "error", message: `zero-length data received from ${url}` });
    expect(sets.at(-1)).toEqual([]);
    expect(logs.length).toBe(3);
  });

  it("keeps the last set when the URL is unreachable", async () => {
    const sets: Pod[][] = [];
    const src = new HttpSource({ url: "http://127.0.0.1:1/nothing", nodeName: "n", periodMs: 60_000, timeoutMs: 2_000 }, (p) => sets.push(p));
    expect((await src.poll()).kind).toBe("error");
    expect(sets).toEqual([]);
  });

  it("refuses a pathological manifest URL body and keeps the pods it has (issue 14)", async () => {
    const sets: Pod[][] = [];
    const src = new HttpSource({ url, nodeName: "n", periodMs: 60_000, log: () => undefined }, (p) => sets.push(p));
    body = podJSON("a");
    expect((await src.poll()).kind).toBe("set");
    for (const bad of [`{"apiVersion":"v1","kind":"Pod","x":${"[".repeat(100000)}${"]".repeat(100000)}}`, "apiVersion: v1\nkind: Pod\nx: &a [*a]\n"]) {
      body = bad;
      expect(await src.poll()).toMatchObject({ kind: "error", message: expect.stringMatching(/exceeded max depth of 100|refers to itself/) });
    }
    expect(sets).toHaveLength(1);
  });
});
