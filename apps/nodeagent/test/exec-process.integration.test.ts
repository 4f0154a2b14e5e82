// The same acceptance as exec-containerd on the process CRI server as `pnpm start` runs it
// (`isolation: "namespaces"`): its own SPDY/3.1 streaming server serves exec, attach (output only)
// and port-forward. Exec enters the container's namespaces, so kubectl cp's remote side is the
// container's private /tmp. As root the pod has its own network namespace (CNI bridge): port-forward
// connects inside it, also to a server listening on the pod's 127.0.0.1 only.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcessRuntime, type ProcessRuntime } from "@skiff/cri-process-server";
import { adminToken } from "@skiff/test-support";
import { WebSocket } from "ws";
import { freePort } from "./cli-helpers.js";
import { defineStreamingAcceptance, kubectlBuild, spawnKubectl, startStreamingCluster, type StreamingCluster } from "./streaming-helpers.js";

describe("kubectl streaming on the process runtime", () => {
  // Larger than the streaming path's 1 MiB reads: several full-size SPDY data frames.
  const bigBytes = 12 * 1024 * 1024 + 12345;
  const dir = mkdtempSync(join(tmpdir(), "skiff-exp-"));
  let cri: ProcessRuntime | undefined;
  let cluster: StreamingCluster | undefined;
  let httpPort = 0;
  let loopbackPort = 0;

  beforeAll(async () => {
    httpPort = await freePort();
    loopbackPort = await freePort();
    cri = await startProcessRuntime({ socketPath: join(dir, "cri.sock"), stateDir: join(dir, "cri-state"), isolation: "namespaces" });
    cluster = await startStreamingCluster(join(dir, "cluster"), cri.endpoint);
    const www = join(dir, "www");
    await cluster.runPod({
      metadata: { name: "box" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          { name: "main", image: "busybox:1.36", command: ["sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"] },
          { name: "web", image: "busybox:1.36", command: ["sh", "-c", `mkdir -p ${www} && echo hello-httpd > ${www}/index.html && head -c ${bigBytes} /dev/urandom > ${www}/big && exec busybox httpd -f -p ${httpPort} -h ${www}`] },
          { name: "reader", image: "busybox:1.36", stdin: true, command: ["sh", "-c", "while read line; do echo got:$line; done"] },
        ],
      },
    });
    await cluster.runPod({
      metadata: { name: "lobox" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: "loweb", image: "busybox:1.36", command: ["sh", "-c", `mkdir -p ${www}-lo && echo hello-loopback > ${www}-lo/index.html && exec busybox httpd -f -p 127.0.0.1:${loopbackPort} -h ${www}-lo`] }],
      },
    });
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await cri?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  defineStreamingAcceptance({
    cluster: () => {
      if (!cluster) throw new Error("cluster not started");
      return cluster;
    },
    localDir: dir,
    remoteDir: "/tmp",
    get httpPort() {
      return httpPort;
    },
    terminalSizeAtStart: true,
  });

  for (const [label, binary] of [["kubectl", undefined], ["kubectl 1.27", kubectlBuild("1.27")]] as const) {
    const missing = label !== "kubectl" && binary === undefined;
    it.skipIf(missing)(`${label}: port-forward carries a download of several MiB intact (large reads, frames of up to 1 MiB)${missing ? " (skipped: no kubectl.1.27 beside the kubectl dispatcher)" : ""}`, async () => {
      if (!cluster) throw new Error("cluster not started");
      const sum = await cluster.kubectl(["exec", "box", "-c", "web", "--", "sha256sum", `${join(dir, "www")}/big`]);
      expect(sum.code).toBe(0);
      const local = await freePort();
      const k = spawnKubectl(cluster.kubeconfig, ["port-forward", "pod/box", `${local}:${httpPort}`], binary);
      try {
        await k.waitForOutput(/Forwarding from 127\.0\.0\.1/);
        for (let i = 0; i < 2; i++) {
          const body = Buffer.from(await (await fetch(`http://127.0.0.1:${local}/big`)).arrayBuffer());
          expect(body.length).toBe(bigBytes);
          expect(createHash("sha256").update(body).digest("hex")).toBe(sum.stdout.split(" ")[0]);
        }
      } finally {
        k.proc.kill("SIGKILL");
      }
    });
  }

  it("exec enters the container: its PID 1 is the container's command and its /tmp is the container's own", async () => {
    if (!cluster) throw new Error("cluster not started");
    const r = await cluster.kubectl(["exec", "box", "-c", "main", "--", "sh", "-c", "tr '\\0' ' ' < /proc/1/cmdline; echo; ls /tmp | wc -l"]);
    expect(r.code).toBe(0);
    const [cmdline, tmpCount] = r.stdout.split("\n");
    expect(cmdline).toMatch(/^sh -c i=0; while true; do echo tick/);
    // The host's /tmp holds this test's own folder; the container's private /tmp does not.
    expect(existsSync(dir)).toBe(true);
    expect(Number(tmpCount)).toBeLessThan(readdirSync(tmpdir()).length);
  });

  /** Runs an exec over WebSocket through the apiserver: the negotiated protocol, each channel's bytes, and the messages sent. */
  async function wsExec(query: string, protocols: string[], send: (ws: WebSocket) => void): Promise<{ protocol: string; channels: Map<number, string>; text: boolean[] }> {
    if (!cluster) throw new Error("cluster not started");
    const url = `wss://127.0.0.1:${String(cluster.api.port)}/api/v1/namespaces/default/pods/box/exec?container=main&${query}`;
    // The serving certificate is for "localhost"; ws passes TLS options through to tls.connect.
    const options = { ca: cluster.api.ca, servername: "localhost", headers: { authorization: `Bearer ${adminToken}` } };
    const ws = new WebSocket(url, protocols, options);
    const channels = new Map<number, string>();
    const text: boolean[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => send(ws));
      ws.on("message", (data: Buffer, isBinary: boolean) => {
        text.push(!isBinary);
        const base64 = ws.protocol.includes("base64");
        const channel = base64 ? data.toString("latin1").charCodeAt(0) - 48 : (data[0] ?? -1);
        const payload = base64 ? Buffer.from(data.toString("latin1").slice(1), "base64") : data.subarray(1);
        channels.set(channel, (channels.get(channel) ?? "") + payload.toString("utf8"));
      });
      ws.once("close", () => resolve());
      ws.once("error", reject);
    });
    return { protocol: ws.protocol, channels, text };
  }

  it("exec over WebSocket v5.channel.k8s.io (kubectl 1.30+): stdin's close signal ends the command's input; the exit is a Status on channel 3", async () => {
    const r = await wsExec("command=sh&command=-c&command=cat%3B%20echo%20done%3B%20exit%204&stdin=true&stdout=true&stderr=true", ["v5.channel.k8s.io"], (ws) => {
      ws.send(Buffer.concat([Buffer.from([0]), Buffer.from("hello\n")]));
      ws.send(Buffer.from([255, 0]));
    });
    expect(r.protocol).toBe("v5.channel.k8s.io");
    expect(r.channels.get(1)).toBe("hello\ndone\n");
    const status = JSON.parse(r.channels.get(3) ?? "{}") as { status?: string; reason?: string; details?: { causes?: Array<{ reason: string; message: string }> } };
    expect(status).toMatchObject({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "4" }] } });
  });

  it("exec over WebSocket v4.base64.channel.k8s.io: text messages, channel digit then base64", async () => {
    const r = await wsExec("command=echo&command=hi&stdout=true&stderr=true", ["v4.base64.channel.k8s.io"], () => undefined);
    expect(r.protocol).toBe("v4.base64.channel.k8s.io");
    expect(r.text.every((t) => t)).toBe(true);
    expect(r.channels.get(1)).toBe("hi\n");
    expect(JSON.parse(r.channels.get(3) ?? "{}")).toEqual({ metadata: {}, status: "Success" });
  });

  it("a WebSocket exec offering only unknown protocols is refused before any stream opens", async () => {
    await expect(wsExec("command=true&stdout=true", ["v9.channel.k8s.io"], () => undefined)).rejects.toThrow(/Unexpected server response: 403/);
  });

  it("the official Python client (python3-kubernetes, Debian) execs over WebSocket v4.channel.k8s.io", async () => {
    if (!cluster) throw new Error("cluster not started");
    const script = join(dir, "exec.py");
    writeFileSync(
      script,
      [
        "import sys",
        "from kubernetes import client, config",
        "from kubernetes.stream import stream",
        "config.load_kube_config(config_file=sys.argv[1])",
        "v1 = client.CoreV1Api()",
        "out = stream(v1.connect_get_namespaced_pod_exec, 'box', 'default', container='main', command=['sh', '-c', 'echo from-python; echo err >&2'], stderr=True, stdin=False, stdout=True, tty=False)",
        "print(repr(out))",
      ].join("\n"),
    );
    const out = await new Promise<string>((resolve, reject) =>
      execFile("/usr/bin/python3", [script, cluster?.kubeconfig ?? ""], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
    );
    expect(out).toContain("from-python");
    expect(out).toContain("err");
  });

  const podNetwork = process.getuid?.() === 0 && existsSync("/usr/lib/cni/bridge");
  it.skipIf(!podNetwork)(
    podNetwork ? "the pod has its own network namespace: its IP is the CNI bridge's, and port-forward reaches a server on the pod's 127.0.0.1" : "pod network namespace (skipped: needs root and containernetworking-plugins)",
    async () => {
      if (!cluster) throw new Error("cluster not started");
      const ip = await cluster.kubectl(["get", "pod", "box", "-o", "jsonpath={.status.podIP}"]);
      expect(ip.stdout).toMatch(/^10\.\d+\.\d+\.\d+$/);
      expect(ip.stdout).not.toBe("127.0.0.1");
      const inside = await cluster.kubectl(["exec", "box", "-c", "main", "--", "ip", "-4", "-o", "addr", "show", "eth0"]);
      expect(inside.stdout).toContain(`inet ${ip.stdout}/`);
      const local = await freePort();
      const k = spawnKubectl(cluster.kubeconfig, ["port-forward", "pod/lobox", `${local}:${loopbackPort}`]);
      try {
        await k.waitForOutput(/Forwarding from 127\.0\.0\.1/);
        expect(await (await fetch(`http://127.0.0.1:${local}/`)).text()).toBe("hello-loopback\n");
        expect(await (await fetch(`http://127.0.0.1:${local}/index.html`)).text()).toBe("hello-loopback\n");
      } finally {
        k.proc.kill("SIGKILL");
      }
    },
  );

  it("the official Python client port-forwards over WebSocket v4.channel.k8s.io to the HTTP server in the pod", async () => {
    if (!cluster) throw new Error("cluster not started");
    const script = join(dir, "portforward.py");
    writeFileSync(
      script,
      [
        "import sys",
        "from kubernetes import client, config",
        "from kubernetes.stream import portforward",
        "config.load_kube_config(config_file=sys.argv[1])",
        "port = int(sys.argv[2])",
        "v1 = client.CoreV1Api()",
        "pf = portforward(v1.connect_get_namespaced_pod_portforward, 'box', 'default', ports=str(port))",
        "sock = pf.socket(port)",
        "sock.setblocking(True)",
        "sock.sendall(b'GET /index.html HTTP/1.0\\r\\nHost: box\\r\\n\\r\\n')",
        "data = b''",
        "while True:",
        "    chunk = sock.recv(4096)",
        "    if not chunk:",
        "        break",
        "    data += chunk",
        "sock.close()",
        "print(data.decode())",
        "print('error:', pf.error(port))",
      ].join("\n"),
    );
    const out = await new Promise<string>((resolve, reject) =>
      execFile("/usr/bin/python3", [script, cluster?.kubeconfig ?? "", String(httpPort)], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
    );
    expect(out).toMatch(/^HTTP\/1\.[01] 200/m);
    expect(out).toContain("hello-httpd");
    expect(out).toContain("error: None");
  });
});

