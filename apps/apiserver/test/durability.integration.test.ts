// Durability (issue 3 acceptance): SIGKILL the real skiff-apiserver while 200 concurrent clients
// create objects of all four kinds; after a restart on the same --data-dir every acknowledged
// object is there unchanged, resourceVersions keep increasing, and a watch resumed from the last
// revision each watcher saw before the kill receives every later event exactly once, in order.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adminToken, appDir, call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

const CLIENTS = 200;
/** Acknowledged creates to wait for before the kill (the kill lands while the clients keep going). */
const ACKED_BEFORE_KILL = 1500;

const podSpec = { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] };
const kinds = [
  { kind: "Job", collection: "/apis/batch/v1/namespaces/default/jobs", body: (n: string) => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: n }, spec: { template: { spec: podSpec } } }) },
  { kind: "CSIDriver", collection: "/apis/storage.example.io/v1/csidrivers", body: (n: string) => ({ apiVersion: "storage.example.io/v1", kind: "CSIDriver", metadata: { name: `${n}.csi.example.io` }, spec: {} }) },
  { kind: "CSINode", collection: "/apis/storage.example.io/v1/csinodes", body: (n: string) => ({ apiVersion: "storage.example.io/v1", kind: "CSINode", metadata: { name: n }, spec: { drivers: [{ name: "d.csi.example.io", nodeID: n }] } }) },
  { kind: "PodTemplate", collection: "/api/v1/namespaces/default/podtemplates", body: (n: string) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name: n }, template: { spec: podSpec } }) },
] as const;

interface Meta { name: string; uid: string; resourceVersion: string }
type Target = Pick<RunningServer, "port" | "ca">;

// Starts skiff-apiserver on an existing directory (same flags as the harness) — the restart.
async function restartOn(dir: string): Promise<RunningServer> {
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@skiff/source", "--import", "tsx", join(appDir, "src/main.ts"),
      "--secure-port=0", "--bind-address=127.0.0.1", `--data-dir=${join(dir, "data")}`, `--cert-dir=${join(dir, "pki")}`, `--token-auth-file=${join(dir, "tokens.csv")}`,
    ],
    { cwd: join(appDir, "../.."), stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  const port = await new Promise<number>((resolve, reject) => {
    proc.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /Serving securely on [^\n]*:(\d+)\n/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    proc.once("exit", (code) => reject(new Error(`restarted apiserver exited with ${String(code)}: ${err}`)));
  });
  const ca = await readFile(join(dir, "pki", "ca.crt"), "utf8");
  return {
    port, dir, ca, proc, stderr: () => err,
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve(proc.exitCode);
      proc.once("exit", (code) => resolve(code));
      proc.kill("SIGTERM");
    }),
  };
}

// A watch stream: every event's type, name and resourceVersion, in arrival order.
interface Watch { events: { type: string; name: string; rv: number }[]; close(): void; ended: Promise<void> }
function openWatch(s: Target, path: string, rv: string): Watch {
  const events: Watch["events"] = [];
  let close = () => {};
  const ended = new Promise<void>((resolve) => {
    const req = request(
      { host: "127.0.0.1", servername: "localhost", port: s.port, path: `${path}?watch=1&resourceVersion=${rv}`, ca: s.ca, headers: { authorization: `Bearer ${adminToken}` } },
      (res) => {
        let buf = "";
        res.on("data", (d: Buffer) => {
          buf += d.toString();
          let i;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line) as { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; message?: string } };
            events.push({ type: ev.type, name: ev.object.metadata?.name ?? ev.object.message ?? "", rv: Number(ev.object.metadata?.resourceVersion ?? -1) });
          }
        });
        res.on("end", () => resolve());
        res.on("error", () => resolve());
        res.on("close", () => resolve());
      },
    );
    req.on("error", () => resolve());
    req.end();
    close = () => req.destroy();
  });
  return { events, close: () => close(), ended };
}

describe("durability across SIGKILL", () => {
  let s: RunningServer | undefined;
  let restarted: RunningServer | undefined;
  afterAll(async () => {
    if (s && s.proc.exitCode === null) s.proc.kill("SIGKILL");
    await restarted?.stop();
  });

  it(`keeps every acknowledged create of ${CLIENTS} concurrent clients and resumes watches exactly once`, async () => {
    s = await startServer();
    const first = s;
    const startRV = ((await call(first, "GET", kinds[0].collection)).json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watches = kinds.map((k) => openWatch(first, k.collection, startRV));

    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const acked = new Map<string, Meta>(); // `${kind}/${name}` → stored metadata from the 201
    const ackedRVs: number[] = [];
    let killed = false;
    let seq = 0;
    const post = (path: string, body: unknown) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const data = JSON.stringify(body);
        const req = request(
          { host: "127.0.0.1", servername: "localhost", port: first.port, path, method: "POST", ca: first.ca, agent, headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
          (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(data);
      });
    let onEnough = () => {};
    const enough = new Promise<void>((r) => (onEnough = r));
    const client = async (c: number) => {
      while (!killed) {
        const k = kinds[(c + seq) % kinds.length] ?? kinds[0];
        const n = `c${String(c)}-${String(++seq)}`;
        try {
          const r = await post(k.collection, k.body(n));
          if (r.status !== 201) throw new Error(`create ${k.kind} ${n}: ${String(r.status)} ${r.body}`);
          const meta = (JSON.parse(r.body) as { metadata: Meta }).metadata;
          acked.set(`${k.kind}/${meta.name}`, meta);
          ackedRVs.push(Number(meta.resourceVersion));
          if (acked.size >= ACKED_BEFORE_KILL) onEnough();
        } catch (e) {
          if (!killed) throw e;
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await enough;
    first.proc.kill("SIGKILL");
    killed = true;
    await Promise.allSettled(clients);
    agent.destroy();
    for (const w of watches) w.close();
    await new Promise<void>((r) => (first.proc.exitCode !== null || first.proc.signalCode !== null ? r() : first.proc.once("exit", () => r())));
    expect(first.proc.signalCode).toBe("SIGKILL");
    expect(acked.size).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);
    // Every acknowledged write got its own revision.
    expect(new Set(ackedRVs).size).toBe(ackedRVs.length);
    // The watchers were live before the kill (so "resume from the last revision seen" is real).
    expect(watches.some((w) => w.events.length > 0)).toBe(true);
    const lastSeen = watches.map((w) => w.events.reduce((m, e) => Math.max(m, e.rv), Number(startRV)));

    restarted = await restartOn(first.dir);
    const again = restarted;
    // 1. Every acknowledged object is there, unchanged.
    const stored = new Map<string, Meta>();
    let listRV = 0;
    for (const k of kinds) {
      const l = (await call(again, "GET", k.collection)).json() as { metadata: { resourceVersion: string }; items: { metadata: Meta }[] };
      listRV = Math.max(listRV, Number(l.metadata.resourceVersion));
      for (const i of l.items) stored.set(`${k.kind}/${i.metadata.name}`, i.metadata);
    }
    const missing = [...acked.keys()].filter((key) => !stored.has(key));
    expect(missing).toEqual([]);
    for (const [key, meta] of acked) {
      expect(stored.get(key)).toMatchObject({ uid: meta.uid, resourceVersion: meta.resourceVersion });
    }
    // 2. resourceVersions keep increasing after the restart.
    const maxBefore = Math.max(...[...stored.values()].map((m) => Number(m.resourceVersion)));
    expect(listRV).toBeGreaterThanOrEqual(maxBefore);
    const after = await call(again, "POST", kinds[3].collection, kinds[3].body("after-restart"));
    expect(after.status, after.body).toBe(201);
    expect(Number((after.json() as { metadata: Meta }).metadata.resourceVersion)).toBeGreaterThan(maxBefore);

    // 3. A watch resumed from the last revision seen before the kill gets every later event once.
    for (const [i, k] of kinds.entries()) {
      const from = lastSeen[i] ?? 0;
      const expected = [...stored.entries()]
        .filter(([key, m]) => key.startsWith(`${k.kind}/`) && Number(m.resourceVersion) > from)
        .map(([, m]) => m.name)
        .concat(k.kind === "PodTemplate" ? ["after-restart"] : []);
      const w = openWatch(again, k.collection, String(from));
      const deadline = Date.now() + 30_000;
      while (w.events.length < expected.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300)); // anything extra (a duplicate) would arrive now
      w.close();
      expect(w.events.filter((e) => e.type !== "ADDED"), `${k.kind} non-ADDED events`).toEqual([]);
      const names = w.events.map((e) => e.name);
      expect(new Set(names).size, `${k.kind}: duplicates`).toBe(names.length);
      expect([...names].sort(), `${k.kind}: events after ${String(from)}`).toEqual([...expected].sort());
      const rvs = w.events.map((e) => e.rv);
      expect(rvs, `${k.kind}: in revision order`).toEqual([...rvs].sort((a, b) => a - b));
    }
  }, 240_000);
});
