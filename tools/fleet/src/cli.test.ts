import { describe, expect, it } from "vitest";
import { parseFleetArgs, runFleetCli } from "./cli.js";

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } } };
}

describe("skiff-fleet command line", () => {
  it("parses the fleet's flags and passes what follows -- to every agent", () => {
    const r = parseFleetArgs(["--nodes", "100", "--kubeconfig=k.yaml", "--name-prefix=h-", "--", "--max-pods=50", "-v=2"]);
    expect(r).toEqual({ ok: true, value: { nodes: 100, kubeconfig: "k.yaml", insecureSkipTLSVerify: false, namePrefix: "h-", agentArgs: ["--max-pods=50", "-v=2"], help: false } });
  });

  it("takes a per-node token template (--node-token, {node} replaced by the node's name) and refuses one without {node}", () => {
    expect(parseFleetArgs(["--nodes=2", "--server=https://x", "--node-token=t-{node}"])).toMatchObject({ ok: true, value: { nodeToken: "t-{node}" } });
    expect(parseFleetArgs(["--nodes=2", "--server=https://x", "--node-token=shared"])).toEqual({ ok: false, errors: ['--node-token "shared": the template must contain {node} (one token per node)'] });
  });

  it("takes --no-sync-admission (no pod-work gate); without it the gate is on", () => {
    expect(parseFleetArgs(["--nodes=2", "--server=https://x", "--no-sync-admission"])).toMatchObject({ ok: true, value: { noSyncAdmission: true } });
    const plain = parseFleetArgs(["--nodes=2", "--server=https://x"]);
    expect(plain.ok && "noSyncAdmission" in plain.value).toBe(false);
    expect(parseFleetArgs(["--nodes=2", "--server=https://x", "--no-sync-admission=yes"])).toMatchObject({ ok: false });
  });

  it("refuses bad flags with exit code 2 and says why", async () => {
    expect(parseFleetArgs(["--nodes=0", "--server=https://x"])).toEqual({ ok: false, errors: ['--nodes must be an integer >= 1, got "0"'] });
    expect(parseFleetArgs(["--nodes=3"])).toEqual({ ok: false, errors: ["--kubeconfig or --server is required"] });
    expect(parseFleetArgs(["--nodes=3", "--server=https://x", "--name-prefix=Big_"])).toMatchObject({ ok: false, errors: [expect.stringMatching(/lower-case DNS subdomains/)] });
    const t = io();
    expect(await runFleetCli(["--nodes=2", "--bogus"], t.io)).toBe(2);
    expect(t.err.join("")).toMatch(/^skiff-fleet: Unknown option '--bogus'/);
  });

  it("refuses to start more nodes than memory allows, printing the estimate, before connecting", async () => {
    const t = io();
    expect(await runFleetCli(["--nodes=10000000", "--server=https://127.0.0.1:1"], t.io)).toBe(1);
    expect(t.err.join("")).toMatch(/^skiff-fleet: fleet: 10000000 hollow nodes need about [\d.]+ GiB \(160\.0 MiB \+ 4\.0 MiB per node\), but this process can use [\d.]+ GiB .* at most \d+ nodes fit/);
  });
});
