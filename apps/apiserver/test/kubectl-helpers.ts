// Helpers for kubectl.integration.test.ts: run one of the installed kubectl builds against a
// started apiserver, synchronously or as a long-running `get -w`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface KubectlBuild {
  readonly label: string;
  readonly path: string | undefined;
  /**
   * kubectl ≤ 1.27 fetches `/openapi/v2` (gnostic protobuf) for `create` validation and `explain`
   * and can print explain from it (`--output=plaintext-openapiv2`); 1.28+ use /openapi/v3 only.
   */
  readonly readsOpenAPIV2: boolean;
}

const sdk = "/usr/lib/google-cloud-sdk/bin";
const firstExisting = (...paths: string[]) => paths.find((p) => existsSync(p));

/** kubectl 1.32 (the dispatcher or its 1.32 build) and 1.27 (or Debian's kubernetes-client); `path` undefined when absent. */
export const kubectlBuilds: readonly KubectlBuild[] = [
  { label: "1.32", path: firstExisting("/usr/bin/kubectl", `${sdk}/kubectl.1.32`), readsOpenAPIV2: false },
  { label: "1.27", path: firstExisting(`${sdk}/kubectl.1.27`), readsOpenAPIV2: true },
];

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export class Kubectl {
  constructor(
    readonly bin: string,
    readonly kubeconfig: string,
    readonly home: string,
  ) {}

  private args(args: readonly string[]): string[] {
    return [`--kubeconfig=${this.kubeconfig}`, `--cache-dir=${join(this.home, "cache")}`, ...args];
  }

  private env(): NodeJS.ProcessEnv {
    return { ...process.env, HOME: this.home, KUBECONFIG: this.kubeconfig };
  }

  run(...args: string[]): Result {
    return this.runWithEnv({}, ...args);
  }

  /** `run` with extra environment variables (e.g. `GODEBUG`). */
  runWithEnv(extra: Readonly<Record<string, string>>, ...args: string[]): Result {
    const r = spawnSync(this.bin, this.args(args), { encoding: "utf8", timeout: 60_000, env: { ...this.env(), ...extra } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Starts `kubectl <args>` (a watch) and collects its stdout lines. */
  watch(...args: string[]): Watching {
    const child = spawn(this.bin, this.args(args), { env: this.env(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const waiters: { re: RegExp; resolve: (m: string) => void }[] = [];
    const check = () => {
      for (const w of [...waiters]) {
        const line = out.split("\n").find((l) => w.re.test(l));
        if (line !== undefined) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    };
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    return {
      output: () => out,
      stderr: () => err,
      waitFor: (re, timeoutMs = 20_000) =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no line matching ${String(re)} in:\n${out}\nstderr:\n${err}`)), timeoutMs);
          waiters.push({ re, resolve: (l) => { clearTimeout(timer); resolve(l); } });
          check();
        }),
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    };
  }

  async manifest(name: string, text: string): Promise<string> {
    await mkdir(this.home, { recursive: true });
    const p = join(this.home, name);
    await writeFile(p, text);
    return p;
  }
}

export interface Watching {
  output(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `re` (already printed or yet to come). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** One of the four kinds as kubectl sees it. */
export interface KindCase {
  readonly kind: "Job" | "CSIDriver" | "CSINode" | "PodTemplate";
  /** kubectl's resource argument and its `type/name` prefix. */
  readonly resource: string;
  readonly qualified: string;
  /** REST collection path (namespaced kinds in `default`). */
  readonly path: string;
  readonly columns: readonly string[];
  readonly wideColumns: readonly string[];
  readonly explainField: string;
  manifest(name: string, labels: Record<string, string>): string;
  /** A manifest violating one rule, and the line kubectl must print for it. */
  readonly invalid: { manifest(name: string): string; line(name: string): string };
}

const labelBlock = (labels: Record<string, string>) =>
  Object.keys(labels).length === 0 ? "" : `  labels:\n${Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`).join("\n")}\n`;

export const kindCases: readonly KindCase[] = [
  {
    kind: "Job",
    resource: "jobs",
    qualified: "job.batch",
    path: "/apis/batch/v1/namespaces/default/jobs",
    columns: ["NAME", "COMPLETIONS", "DURATION", "AGE"],
    wideColumns: ["NAME", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
    explainField: "jobs.spec.completionMode",
    manifest: (name, labels) =>
      `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\n${labelBlock(labels)}spec:\n  completions: 3\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: pi\n        image: busybox:1.36\n`,
    invalid: {
      manifest: (name) => `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\nspec:\n  parallelism: -1\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: pi\n        image: busybox\n`,
      line: (name) => `The Job "${name}" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0`,
    },
  },
  {
    kind: "CSIDriver",
    resource: "csidrivers",
    qualified: "csidriver.storage.example.io",
    path: "/apis/storage.example.io/v1/csidrivers",
    columns: ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"],
    wideColumns: ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES", "AGE"],
    explainField: "csidrivers.spec.podInfoOnMount",
    manifest: (name, labels) =>
      `apiVersion: storage.example.io/v1\nkind: CSIDriver\nmetadata:\n  name: ${name}\n${labelBlock(labels)}spec:\n  attachRequired: false\n  podInfoOnMount: true\n  volumeLifecycleModes: [Persistent, Ephemeral]\n  tokenRequests:\n  - audience: vault\n`,
    invalid: {
      manifest: (name) => `apiVersion: storage.example.io/v1\nkind: CSIDriver\nmetadata:\n  name: ${name}\nspec:\n  fsGroupPolicy: Sometimes\n`,
      line: (name) => `The CSIDriver "${name}" is invalid: spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"`,
    },
  },
  {
    kind: "CSINode",
    resource: "csinodes",
    qualified: "csinode.storage.example.io",
    path: "/apis/storage.example.io/v1/csinodes",
    columns: ["NAME", "DRIVERS", "AGE"],
    wideColumns: ["NAME", "DRIVERS", "AGE"],
    explainField: "csinodes.spec.drivers",
    manifest: (name, labels) =>
      `apiVersion: storage.example.io/v1\nkind: CSINode\nmetadata:\n  name: ${name}\n${labelBlock(labels)}spec:\n  drivers:\n  - name: hostpath.csi.example.io\n    nodeID: ${name}\n    topologyKeys: [topology.example.io/zone]\n`,
    invalid: {
      manifest: (name) => `apiVersion: storage.example.io/v1\nkind: CSINode\nmetadata:\n  name: ${name}\nspec:\n  drivers:\n  - name: hostpath.csi.example.io\n    nodeID: ""\n`,
      line: (name) => `The CSINode "${name}" is invalid: spec.drivers[0].nodeID: Required value`,
    },
  },
  {
    kind: "PodTemplate",
    resource: "podtemplates",
    qualified: "podtemplate",
    path: "/api/v1/namespaces/default/podtemplates",
    columns: ["NAME", "CONTAINERS", "IMAGES", "POD LABELS"],
    wideColumns: ["NAME", "CONTAINERS", "IMAGES", "POD LABELS"],
    explainField: "podtemplates.template.spec.containers",
    manifest: (name, labels) =>
      `apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: ${name}\n${labelBlock(labels)}template:\n  metadata:\n    labels:\n      app: web\n  spec:\n    containers:\n    - name: web\n      image: nginx:1.25\n`,
    invalid: {
      manifest: (name) => `apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: ${name}\ntemplate:\n  spec:\n    containers: []\n`,
      line: (name) => `The PodTemplate "${name}" is invalid: template.spec.containers: Required value`,
    },
  },
];

/** Splits a kubectl table header into column names (columns are separated by 2+ spaces). */
export function headerColumns(stdout: string): string[] {
  const header = stdout.split("\n")[0] ?? "";
  return header.trim().split(/\s{2,}/);
}
