// `pnpm start`: the local cluster. Today that is the apiserver alone (https://127.0.0.1:6443, SQLite
// under .skiff/data) with a kubeconfig in .skiff/kubeconfig; the job controller, scheduler and node
// agent join it as they are built. Installs nothing: it builds the workspace only if the apiserver's
// build output is missing. Ctrl-C stops it; data survives a restart.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const state = join(root, ".skiff");
const apiserver = join(root, "apps/apiserver/dist/main.js");
const port = Number(process.env.SKIFF_PORT ?? 6443);

if (!existsSync(apiserver)) {
  console.log("skiff: building the workspace (first start)...");
  execFileSync("pnpm", ["-s", "build"], { cwd: root, stdio: "inherit" });
}

mkdirSync(state, { recursive: true });
const tokenFile = join(state, "tokens.csv");
if (!existsSync(tokenFile)) {
  writeFileSync(tokenFile, `${randomBytes(24).toString("hex")},admin,admin,"system:masters"\n`, { mode: 0o600 });
}
const token = readFileSync(tokenFile, "utf8").split(",")[0];

console.log(`skiff: starting the apiserver on https://127.0.0.1:${port} (SQLite in .skiff/data)...`);
const child = spawn(
  process.execPath,
  [apiserver, "--bind-address=127.0.0.1", `--secure-port=${port}`, `--data-dir=${join(state, "data")}`, `--cert-dir=${join(state, "pki")}`, `--token-auth-file=${tokenFile}`, "--anonymous-auth=false"],
  { cwd: root, stdio: ["ignore", "inherit", "pipe"] },
);
let ready = false;
child.stderr.on("data", (chunk) => {
  process.stderr.write(chunk);
  if (!ready && String(chunk).includes("Serving securely on")) {
    ready = true;
    const ca = readFileSync(join(state, "pki/ca.crt")).toString("base64");
    const kubeconfig = join(state, "kubeconfig");
    writeFileSync(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        `- name: skiff\n  cluster:\n    server: https://127.0.0.1:${port}\n    certificate-authority-data: ${ca}`,
        "users:",
        `- name: admin\n  user:\n    token: ${token}`,
        "contexts:",
        "- name: skiff\n  context:\n    cluster: skiff\n    user: admin\n    namespace: default",
        "current-context: skiff",
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    console.log(
      [
        "",
        "skiff: the apiserver is ready. Next:",
        "  export KUBECONFIG=$PWD/.skiff/kubeconfig",
        "  kubectl api-resources",
        "  kubectl create -f <a Job manifest> && kubectl get jobs",
        "",
        "Running: apiserver only. Not built yet: job controller, scheduler, node agent (Jobs are stored",
        "and served, but no pods run). Ctrl-C stops it.",
      ].join("\n"),
    );
  }
});
const stop = () => child.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code, signal) => process.exit(signal ? 0 : (code ?? 1)));
