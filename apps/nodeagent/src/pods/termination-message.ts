import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, rmSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Container, Pod } from "@skiff/api-types";
import { parseCRILogLine, type Mount } from "@skiff/cri-api";

/** At most this much of a termination-log file is read (kubecontainer.MaxContainerTerminationMessageLength). */
export const maxTerminationMessageBytes = 4 * 1024;
/** FallbackToLogsOnError reads at most this much of the log (MaxContainerTerminationMessageLogLength)... */
export const maxTerminationMessageLogBytes = 2 * 1024;
/** ...from at most this many last lines (MaxContainerTerminationMessageLogLines). */
export const maxTerminationMessageLogLines = 80;

/** The directory of a pod's container files: `<rootDir>/pods/<uid>/containers/<name>`. Pure. */
export function podContainerDir(rootDir: string, podUID: string, containerName: string): string {
  return join(rootDir, "pods", podUID, "containers", containerName);
}

/**
 * The termination-log mount of one container instance: creates an empty file (0666) named by a
 * random id in the pod's container directory and binds it at `terminationMessagePath`; none when
 * the path is empty. The file operations are asynchronous.
 * @throws Error (rejects) when the file cannot be created.
 * @see pkg/kubelet/kuberuntime/kuberuntime_container.go (makeMounts) in kubernetes/kubernetes v1.23
 */
export async function terminationMessageMount(rootDir: string, pod: Pod, container: Container): Promise<Mount | undefined> {
  const path = container.terminationMessagePath ?? "";
  if (path === "") return undefined;
  const dir = podContainerDir(rootDir, pod.metadata?.uid ?? "", container.name);
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const hostPath = join(dir, randomBytes(4).toString("hex"));
  await writeFile(hostPath, "");
  await chmod(hostPath, 0o666);
  return { containerPath: path, hostPath, readonly: false, selinuxRelabel: false };
}

function readTail(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/**
 * The last 80 lines of a CRI-format container log, their contents joined by newlines (partial
 * lines joined to their rest), cut to the last 2048 bytes; `""` when the log cannot be read.
 * @see pkg/kubelet/kuberuntime/kuberuntime_container.go (readLastStringFromContainerLogs) in kubernetes/kubernetes v1.23
 */
export function readLastStringFromContainerLog(logPath: string): string {
  let text: string;
  try {
    text = readTail(logPath, 256 * 1024).toString("utf8");
  } catch {
    return "";
  }
  const lines: string[] = [];
  let partial = "";
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    const parsed = parseCRILogLine(raw);
    if (!parsed.ok) continue;
    partial += parsed.value.content;
    if (parsed.value.partial) continue;
    lines.push(`${partial}\n`);
    partial = "";
  }
  const out = Buffer.from(lines.slice(-maxTerminationMessageLogLines).join(""));
  return out.subarray(Math.max(0, out.length - maxTerminationMessageLogBytes)).toString("utf8");
}

/** An exited container instance as {@link terminationMessage} reads it. */
export interface ExitedContainer {
  readonly exitCode: number;
  readonly reason: string;
  readonly logPath: string;
  readonly mounts: ReadonlyArray<{ readonly containerPath: string; readonly hostPath: string }>;
}

/**
 * The termination message of an exited container: the file bound at `terminationMessagePath`
 * (at most 4096 bytes); with `FallbackToLogsOnError`, a non-zero exit and an empty or absent file,
 * the end of its log. An unreadable file gives `Error on reading termination log <path>: <err>`.
 * @see pkg/kubelet/kuberuntime/kuberuntime_container.go (getTerminationMessage, getPodContainerStatuses) in kubernetes/kubernetes v1.23
 */
export function terminationMessage(container: Container, exited: ExitedContainer): string {
  const path = container.terminationMessagePath ?? "";
  let fallback = container.terminationMessagePolicy === "FallbackToLogsOnError" && exited.exitCode !== 0 && exited.reason !== "ContainerCannotRun";
  let message = "";
  const mount = path === "" ? undefined : exited.mounts.find((m) => m.containerPath === path);
  if (mount) {
    try {
      message = readTail(mount.hostPath, maxTerminationMessageBytes).toString("utf8");
      fallback = fallback && message.length === 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
        message = `Error on reading termination log ${mount.hostPath}: ${err instanceof Error ? err.message : String(err)}`;
        fallback = false;
      }
    }
  }
  if (fallback) message = readLastStringFromContainerLog(exited.logPath);
  return message;
}

/** Removes a pod's container files (`<rootDir>/pods/<uid>/containers`). */
export function removePodContainerDirs(rootDir: string, podUID: string): void {
  rmSync(join(rootDir, "pods", podUID, "containers"), { recursive: true, force: true });
}
