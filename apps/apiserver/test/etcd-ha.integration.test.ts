// Two real apiservers on a real three-member etcd cluster (tools/etcd/start-cluster.sh).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import type { ClientRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { findEtcdBinary, freeLoopbackPortRange } from "@skiff/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, appDir, call, startServer } from "./harness.js";
import type { RunningServer } from "./harness.js";

const run = promisify(execFile);
const etcdTools = join(appDir, "..", "..", "tools", "etcd");
const haveEtcd = findEtcdBinary() !== undefined && existsSync("/usr/bin/curl");

interface WatchEventLine {
  readonly type: string;
  readonly object: { metadata?: { name?: string; resourceVersion?: string } };
}

/** A streaming watch over HTTPS: collects newline-delimited JSON events. */
function openWatch(s: RunningServer, path: string): { events: WatchEventLine[]; ended: () => boolean; close: () => void } {
  const events: WatchEventLine[] = [];
  let done = false;
  let partial = "";
  const req: ClientRequest = request(
    { host: "127.0.0.1", servername: "localhost", port: s.port, path, method: "GET", ca: s.ca, headers: { authorization: `Bearer ${adminToken}` } },
    (res) => {
      res.on("data", (d: Buffer) => {
        const lines = (partial + d.toString()).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) if (line.trim() !== "") events.push(JSON.parse(line) as WatchEventLine);
      });
      res.on("end", () => (done = true));
      res.on("error", () => (done = true));
    },
  );
  req.on("error", () => (done = true));
  req.end();
  return { events, ended: () => done, close: () => req.destroy() };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}


/** The member name (m0, m1, m2: the order of the endpoints) of the current leader; m0 without etcdctl. */
async function leaderName(endpoints: string): Promise<string> {
  if (!existsSync("/usr/bin/etcdctl")) return "m0";
  const { stdout } = await run("/usr/bin/etcdctl", [`--endpoints=${endpoints}`, "endpoint", "status", "-w", "json"], { env: { ...process.env, ETCDCTL_API: "3" } });
  // Member ids are uint64: quote them before parsing so they compare exactly.
  const status = JSON.parse(stdout.replace(/:(\d{16,})/g, ':"$1"')) as { Endpoint: string; Status: { header: { member_id: string }; leader: string } }[];
  const index = status.findIndex((s) => s.Status.header.member_id === s.Status.leader);
  return `m${Math.max(0, endpoints.split(",").indexOf(status[index]?.Endpoint ?? ""))}`;
}

function podTemplate(name: string, data = "0"): unknown {
  return {
    apiVersion: "v1",
    kind: "PodTemplate",
    metadata: { name, labels: { data } },
    template: { metadata: { labels: { app: "ha" } }, spec: { containers: [{ name: "c", image: "busybox" }] } },
  };
}

const path = "/api/v1/namespaces/default/podtemplates";
const controllersLeasePath = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/skiff-apiserver-controllers";

describe.skipIf(!haveEtcd)("two apiservers on a three-member etcd cluster", () => {
  let clusterDir = "";
  let endpoints = "";
  const servers: RunningServer[] = [];
  const start = async (): Promise<RunningServer> => {
    const s = await startServer({ extraArgs: [`--etcd-servers=${endpoints}`, "--etcd-prefix=/skiff-ha", "--etcd-compaction-interval=0"] });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    clusterDir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "skiff-etcd-ha-"));
    const base = await freeLoopbackPortRange([0, 1, 10, 11, 20, 21]);
    const { stdout } = await run(join(etcdTools, "start-cluster.sh"), [clusterDir, String(base)]);
    endpoints = stdout.trim().split("\n").pop() ?? "";
  });

  afterAll(async () => {
    for (const s of servers) await s.stop();
    if (clusterDir !== "") {
      await run(join(etcdTools, "stop-cluster.sh"), [clusterDir]).catch(() => undefined);
      rmSync(clusterDir, { recursive: true, force: true });
    }
  });

  it("shares writes and optimistic concurrency between the apiservers", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    if (a === undefined || b === undefined) throw new Error("servers did not start");
    // Both bootstrapped the default namespace; exactly one object exists.
    expect((await call(b, "GET", "/api/v1/namespaces/default")).status).toBe(200);
    const list = (await call(b, "GET", path)).json() as { metadata: { resourceVersion: string } };
    const w = openWatch(b, `${path}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      const created = await call(a, "POST", path, podTemplate("shared"));
      expect(created.status).toBe(201);
      const rv = (created.json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      await waitFor("the ADDED event on apiserver B", () => w.events.some((e) => e.type === "ADDED" && e.object.metadata?.name === "shared"));
      expect(w.events.find((e) => e.object.metadata?.name === "shared")?.object.metadata?.resourceVersion).toBe(rv);

      const stale = created.json() as { metadata: Record<string, unknown> };
      const viaA = await call(a, "PUT", `${path}/shared`, { ...stale, metadata: { ...stale.metadata, labels: { data: "a" } } });
      expect(viaA.status).toBe(200);
      const viaB = await call(b, "PUT", `${path}/shared`, { ...stale, metadata: { ...stale.metadata, labels: { data: "b" } } });
      expect(viaB.status).toBe(409);
      expect(((await call(b, "GET", `${path}/shared`)).json() as { metadata: { labels: Record<string, string> } }).metadata.labels).toEqual({ data: "a" });
      // One of them runs the in-process controllers: the holder of their lease.
      const lease = (await call(a, "GET", controllersLeasePath)).json() as { spec?: { holderIdentity?: string; leaseDurationSeconds?: number } };
      expect(lease.spec?.holderIdentity).toBeTruthy();
      expect(lease.spec?.leaseDurationSeconds).toBe(15);
    } finally {
      w.close();
    }
  });

  it("loses no acknowledged write when an apiserver is killed and an etcd member restarts", async () => {
    const [a, b] = servers.length >= 2 ? servers : [await start(), await start()];
    if (a === undefined || b === undefined) throw new Error("servers did not start");
    const list = (await call(b, "GET", path)).json() as { metadata: { resourceVersion: string } };
    const w = openWatch(b, `${path}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    const acked = new Map<string, number>();
    let stop = false;
    let failures = 0;
    const writer = async (id: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const target = i % 2 === 0 ? a : b;
        const name = `ha-${id}-${i}`;
        try {
          const r = await call(target, "POST", path, podTemplate(name, String(i)));
          if (r.status === 201) acked.set(name, Number((r.json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
          else failures++;
        } catch {
          failures++; // Connection refused/reset: apiserver A is gone. Not acknowledged.
        }
      }
    };
    const writers = [0, 1, 2, 3].map((id) => writer(id));
    try {
      await waitFor("writes through both apiservers", () => acked.size >= 40);
      const exited = new Promise((resolve) => a.proc.once("exit", resolve));
      a.proc.kill("SIGKILL");
      await exited;
      servers.splice(servers.indexOf(a), 1);
      await waitFor("writes after the kill", () => acked.size >= 80);
      // Stop the leader, so the cluster goes through an election while clients write.
      const victim = await leaderName(endpoints);
      await run(join(etcdTools, "member.sh"), ["stop", clusterDir, victim]);
      const before = acked.size;
      await waitFor("writes with one member down", () => acked.size >= before + 40);
      await run(join(etcdTools, "member.sh"), ["start", clusterDir, victim]);
      const after = acked.size;
      await waitFor("writes after the member rejoined", () => acked.size >= after + 40);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(failures).toBeGreaterThan(0);

    // Every acknowledged create is stored, with the resourceVersion it was acknowledged with.
    const final = (await call(b, "GET", path)).json() as { metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string } }[] };
    const stored = new Map(final.items.map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)]));
    for (const [name, rv] of acked) expect(stored.get(name), name).toBe(rv);

    // The watch on the surviving apiserver saw every create once, in revision order.
    const finalRv = Number(final.metadata.resourceVersion);
    const haNames = [...stored.keys()].filter((n) => n.startsWith("ha-"));
    await waitFor("the watch to catch up", () => w.events.filter((e) => e.object.metadata?.name?.startsWith("ha-")).length >= haNames.length || w.ended());
    w.close();
    const seen = w.events.filter((e) => e.object.metadata?.name?.startsWith("ha-"));
    expect(seen.every((e) => e.type === "ADDED")).toBe(true);
    const revisions = seen.map((e) => Number(e.object.metadata?.resourceVersion));
    for (let i = 1; i < revisions.length; i++) expect(revisions[i]).toBeGreaterThan(revisions[i - 1] as number);
    expect(new Set(seen.map((e) => e.object.metadata?.name)).size).toBe(seen.length);
    expect(seen.map((e) => e.object.metadata?.name).sort()).toEqual(haNames.sort());
    expect(Math.max(...revisions)).toBeLessThanOrEqual(finalRv);

    // The in-process controllers' leader survives the kill: the surviving apiserver renews the
    // lease (at once if it led; else once the dead one's 15 s lease ran out).
    const lease = async () => ((await call(b, "GET", controllersLeasePath)).json() as { spec?: { renewTime?: string; holderIdentity?: string } }).spec;
    const seenLease = await lease();
    await waitFor("the controllers' lease renewed after the kill", async () => (await lease())?.renewTime !== seenLease?.renewTime, 40_000);
    expect((await lease())?.holderIdentity).toBeTruthy();
  });

  it("answers no POST or PUT 409 for objects only one client writes while etcd members are killed", async () => {
    const s = servers[0] ?? (await start());
    const conflicts: string[] = [];
    const last = new Map<string, string>(); // name → resourceVersion of its last acknowledged write
    let acked = 0;
    let failures = 0;
    let stop = false;
    type Obj = { metadata: Record<string, unknown> & { resourceVersion: string } };
    const writer = async (id: number): Promise<void> => {
      for (let k = 0; !stop; k++) {
        const name = `own-${id}-${k}`;
        const created = await call(s, "POST", path, podTemplate(name, "0")).catch(() => undefined);
        if (created?.status === 409) conflicts.push(`POST ${name}: ${created.body}`);
        if (created?.status !== 201) {
          failures++;
          continue;
        }
        acked++;
        let obj = created.json() as Obj;
        last.set(name, obj.metadata.resourceVersion);
        // Updates on the resourceVersion this client got: nobody else writes the object, so a 409 is wrong.
        for (let u = 1; u <= 3 && !stop; u++) {
          const r = await call(s, "PUT", `${path}/${name}`, { ...obj, metadata: { ...obj.metadata, labels: { data: String(u) } } }).catch(() => undefined);
          if (r?.status === 409) conflicts.push(`PUT ${name}: ${r.body}`);
          if (r?.status !== 200) {
            failures++;
            last.delete(name); // Its state is unknown to this client now.
            break;
          }
          acked++;
          obj = r.json() as Obj;
          last.set(name, obj.metadata.resourceVersion);
        }
      }
    };
    const writers = [0, 1, 2, 3, 4, 5].map((id) => writer(id));
    const faults: string[] = [];
    try {
      await waitFor("writes before the faults", () => acked >= 20);
      for (let round = 0; round < 4; round++) {
        const victim = await leaderName(endpoints);
        const pid = Number(readFileSync(join(clusterDir, `${victim}.pid`), "utf8").trim());
        process.kill(pid, "SIGKILL");
        await waitFor(`member ${victim} to exit`, () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        });
        faults.push(victim);
        await new Promise((r) => setTimeout(r, 1_500));
        await run(join(etcdTools, "member.sh"), ["start", clusterDir, victim]);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    console.log(`apiserver on etcd: ${faults.length} leaders killed (${faults.join(", ")}); acknowledged writes ${acked}, failed ${failures}, wrong 409s ${conflicts.length}`);
    expect(conflicts).toEqual([]);
    expect(acked).toBeGreaterThan(50);
    // Every acknowledged write is what is stored.
    for (const [name, rv] of last) {
      const got = await call(s, "GET", `${path}/${name}`);
      expect((got.json() as Obj).metadata.resourceVersion, name).toBe(rv);
    }
    // Recovered by itself.
    const created = await call(s, "POST", path, podTemplate("own-after", "0"));
    expect(created.status).toBe(201);
    const obj = created.json() as Obj;
    expect((await call(s, "PUT", `${path}/own-after`, { ...obj, metadata: { ...obj.metadata, labels: { data: "1" } } })).status).toBe(200);
  });

  it("migrates a SQLite data dir into etcd with --migrate-sqlite-to-etcd", async () => {
    const sqlite = await startServer();
    const created = await call(sqlite, "POST", path, podTemplate("migrated", "m"));
    expect(created.status).toBe(201);
    const uid = (created.json() as { metadata: { uid: string } }).metadata.uid;
    await sqlite.stop();
    const { stdout } = await run(
      process.execPath,
      [
        "--conditions=@skiff/source",
        "--import",
        "tsx",
        join(appDir, "src/main.ts"),
        `--migrate-sqlite-to-etcd=${join(sqlite.dir, "data")}`,
        `--etcd-servers=${endpoints}`,
        "--etcd-prefix=/skiff-migrated",
        `--cert-dir=${join(sqlite.dir, "pki")}`,
      ],
      { cwd: join(appDir, "..", "..") },
    );
    expect(stdout).toMatch(/^Migrated \d+ objects \(0 already present\)/);
    const onEtcd = await startServer({ extraArgs: [`--etcd-servers=${endpoints}`, "--etcd-prefix=/skiff-migrated", "--etcd-compaction-interval=0"] });
    servers.push(onEtcd);
    const got = await call(onEtcd, "GET", `${path}/migrated`);
    expect(got.status).toBe(200);
    expect((got.json() as { metadata: { uid: string; labels: unknown } }).metadata).toMatchObject({ uid, labels: { data: "m" } });
  });
});
