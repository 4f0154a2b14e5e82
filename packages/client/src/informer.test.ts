import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Node } from "@skiff/api-types";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { isDeletedFinalStateUnknown, createInformer } from "./informer.js";

// A scripted apiserver: each list and watch request takes the next response of its script.
type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;
let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

async function serve(lists: Handler[], watches: Handler[]): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(`${url.searchParams.get("watch") === "true" ? "watch" : "list"} rv=${url.searchParams.get("resourceVersion") ?? ""}`);
    const h = url.searchParams.get("watch") === "true" ? watches.shift() : lists.shift();
    if (h) h(req, res, url);
    // no script left: hang (the informer stops it)
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, requests };
}

const node = (name: string, rv: string): Node => ({ apiVersion: "v1", kind: "Node", metadata: { name, resourceVersion: rv } });
const list = (rv: string, items: Node[]): Handler => (_q, res) => res.end(JSON.stringify({ apiVersion: "v1", kind: "NodeList", metadata: { resourceVersion: rv }, items }));
const events = (lines: object[], end = true): Handler => (_q, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  for (const l of lines) res.write(`${JSON.stringify(l)}\n`);
  if (end) res.end();
};
const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 300 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

describe("informer against a scripted server", () => {
  it("relists on a 410 Expired ERROR event: adds, updates, DeletedFinalStateUnknown", async () => {
    const expired = { type: "ERROR", object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: "too old resource version: 5 (9)" } };
    const s = await serve([list("5", [node("a", "3"), node("b", "4")]), list("12", [node("a", "11"), node("c", "12")])], [events([expired]), events([], false)]);
    const client = createClient({ server: s.url, insecureSkipTLSVerify: false }, { qps: 0 });
    const log: string[] = [];
    const informer = createInformer(client.nodes, { onError: () => undefined });
    informer.addEventHandler({
      onAdd: (n, initial) => log.push(`add ${n.metadata?.name ?? ""}${initial ? " initial" : ""}`),
      onUpdate: (o, n) => log.push(`update ${o.metadata?.resourceVersion ?? ""}->${n.metadata?.resourceVersion ?? ""}`),
      onDelete: (n) => log.push(isDeletedFinalStateUnknown(n) ? `delete-unknown ${n.key} ${n.obj.metadata?.resourceVersion ?? ""}` : `delete ${n.metadata?.name ?? ""}`),
    });
    informer.start();
    await until(() => informer.listCount === 2 && s.requests.length === 4);
    expect(s.requests).toEqual(["list rv=", "watch rv=5", "list rv=", "watch rv=12"]);
    expect(log).toEqual(["add a initial", "add b initial", "update 3->11", "add c", "delete-unknown b 4"]);
    expect(informer.store.listKeys().sort()).toEqual(["a", "c"]);
    informer.stop();
    client.close();
  });

  it("resumes the watch from the last resourceVersion (bookmarks included) after the stream drops, without relisting", async () => {
    const s = await serve(
      [list("5", [])],
      [
        events([{ type: "ADDED", object: node("a", "6") }, { type: "BOOKMARK", object: { kind: "Node", apiVersion: "v1", metadata: { resourceVersion: "8" } } }]),
        (_q, res) => {
          res.writeHead(200);
          res.write(`${JSON.stringify({ type: "MODIFIED", object: node("a", "9") })}\n`);
          setTimeout(() => res.destroy(), 50); // connection drops mid-stream
        },
        events([{ type: "DELETED", object: node("a", "10") }], false),
      ],
    );
    const client = createClient({ server: s.url, insecureSkipTLSVerify: false }, { qps: 0 });
    const log: string[] = [];
    const informer = createInformer(client.nodes, { onError: () => undefined });
    informer.addEventHandler({
      onAdd: (n) => log.push(`add ${n.metadata?.resourceVersion ?? ""}`),
      onUpdate: (_o, n) => log.push(`update ${n.metadata?.resourceVersion ?? ""}`),
      onDelete: (n) => log.push(`delete ${isDeletedFinalStateUnknown(n) ? "?" : (n.metadata?.resourceVersion ?? "")}`),
    });
    informer.start();
    await until(() => log.length === 3);
    expect(log).toEqual(["add 6", "update 9", "delete 10"]);
    expect(s.requests).toEqual(["list rv=", "watch rv=5", "watch rv=8", "watch rv=9"]);
    expect(informer.listCount).toBe(1);
    expect(informer.lastSyncResourceVersion()).toBe("10");
    informer.stop();
    client.close();
  });

  it("a failing list is retried; waitForSync resolves false when stopped first", async () => {
    const s = await serve([(_q, res) => res.writeHead(500).end("boom")], []);
    const client = createClient({ server: s.url, insecureSkipTLSVerify: false }, { qps: 0 });
    const errors: unknown[] = [];
    const informer = createInformer(client.nodes, { onError: (e) => errors.push(e) });
    informer.start();
    const waiting = informer.waitForSync();
    await until(() => errors.length === 1);
    informer.stop();
    expect(await waiting).toBe(false);
    expect(informer.hasSynced()).toBe(false);
    client.close();
  });
});
