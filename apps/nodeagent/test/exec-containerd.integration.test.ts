// kubectl exec, attach, cp and port-forward as a user runs them, through the REAL apiserver
// (pods/exec, pods/attach, pods/portforward), the node agent's /exec, /attach, /portForward and
// containerd's streaming server. kubectl is the dispatcher (build picked by the server's minor).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpContainerd, tearDownContainerd } from "@skiff/test-support";
import { freePort } from "./cli-helpers.js";
import { spawnKubectl, startStreamingCluster, type StreamingCluster } from "./streaming-helpers.js";

const setup = setUpContainerd({ prefix: "skiff-ex-", suite: "containerd streaming suite" });

function rawUpgrade(port: number, ca: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", servername: "localhost", port, path, method: "POST", ca, headers: { connection: "Upgrade", upgrade: "SPDY/3.1", "x-stream-protocol-version": "v4.channel.k8s.io", ...headers } });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: "" });
    });
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(setup.endpoint === undefined)("kubectl streaming on containerd", () => {
  let dir: string;
  let cluster: StreamingCluster;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "skiff-exs-"));
    cluster = await startStreamingCluster(dir, setup.endpoint ?? "");
    await cluster.runPod({
      metadata: { name: "box" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          { name: "main", image: "busybox:1.36", imagePullPolicy: "Never", command: ["sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"] },
          { name: "web", image: "busybox:1.36", imagePullPolicy: "Never", command: ["sh", "-c", "mkdir -p /www && echo hello-httpd > /www/index.html && exec busybox httpd -f -p 8080 -h /www"] },
        ],
      },
    });
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    tearDownContainerd(setup);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("exec reports output and the exit code", async () => {
    const r = await cluster.kubectl(["exec", "box", "-c", "main", "--", "sh", "-c", "echo hi; exit 3"]);
    expect(r.stdout).toBe("hi\n");
    expect(r.stderr).toContain("command terminated with exit code 3");
    expect(r.code).toBe(3);
  });

  it("exec -i passes piped stdin and ends when it closes", async () => {
    const r = await cluster.kubectl(["exec", "-i", "box", "-c", "main", "--", "sh", "-c", "tr a-z A-Z"], { input: "piped text\n" });
    expect(r).toMatchObject({ code: 0, stdout: "PIPED TEXT\n" });
  });

  it("exec -it runs an interactive shell through a pseudo-terminal", async () => {
    const cmd = `kubectl --kubeconfig ${cluster.kubeconfig} exec -it box -c main -- sh`;
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const s = spawn("script", ["-qfec", cmd, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"] });
      let out = "";
      s.stdout.on("data", (d: Buffer) => (out += d.toString()));
      s.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const t = setTimeout(() => s.kill("SIGKILL"), 60_000);
      s.on("close", (code) => {
        clearTimeout(t);
        clearInterval(typed);
        resolve({ code: code ?? -1, out });
      });
      // Typed once the shell's prompt is up.
      const typed = setInterval(() => {
        if (/[#$] /.test(out)) {
          clearInterval(typed);
          s.stdin.write("echo tty=$(tty | cut -c1-8)\r");
          setTimeout(() => s.stdin.write("exit 0\r"), 500);
        }
      }, 100);
    });
    expect(r.out).toMatch(/tty=\/dev\/pt/);
    expect(r.code).toBe(0);
  });

  it("cp copies a file into the container and back out", async () => {
    const local = join(dir, "in.txt");
    writeFileSync(local, "copied content\n");
    const put = await cluster.kubectl(["cp", local, "box:/tmp/in.txt", "-c", "main"]);
    expect(put).toMatchObject({ code: 0 });
    const cat = await cluster.kubectl(["exec", "box", "-c", "main", "--", "cat", "/tmp/in.txt"]);
    expect(cat.stdout).toBe("copied content\n");
    const back = join(dir, "out.txt");
    const get = await cluster.kubectl(["cp", "box:/tmp/in.txt", back, "-c", "main"]);
    expect(get).toMatchObject({ code: 0 });
    expect(readFileSync(back, "utf8")).toBe("copied content\n");
  });

  it("attach streams the main process's output", async () => {
    const k = spawnKubectl(cluster.kubeconfig, ["attach", "box", "-c", "main"]);
    try {
      await k.waitForOutput(/tick \d+\n[\s\S]*tick \d+\n/);
    } finally {
      k.proc.kill("SIGKILL");
    }
  });

  it("port-forward reaches an HTTP server in the pod", async () => {
    const local = await freePort();
    const k = spawnKubectl(cluster.kubeconfig, ["port-forward", "pod/box", `${local}:8080`]);
    try {
      await k.waitForOutput(/Forwarding from 127\.0\.0\.1/);
      const body = await (await fetch(`http://127.0.0.1:${local}/`)).text();
      expect(body).toBe("hello-httpd\n");
      const again = await (await fetch(`http://127.0.0.1:${local}/index.html`)).text();
      expect(again).toBe("hello-httpd\n");
    } finally {
      k.proc.kill("SIGKILL");
    }
  });

  it("refuses a container the pod does not have, as 1.23", async () => {
    const r = await cluster.kubectl(["exec", "box", "-c", "nope", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("container nope is not valid for pod box");
  });

  it("refuses an upgrade without credentials with 401 before any stream opens", async () => {
    const r = await rawUpgrade(cluster.api.port, cluster.api.ca, "/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true", {});
    expect(r.status).toBe(401);
    const bad = await rawUpgrade(cluster.api.port, cluster.api.ca, "/api/v1/namespaces/default/pods/box/exec?command=true&stdout=true", { authorization: "Bearer wrong" });
    expect(bad.status).toBe(401);
  });
});
