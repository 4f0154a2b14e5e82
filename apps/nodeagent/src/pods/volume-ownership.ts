import { chmod, lchown, lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";

const rwMask = 0o660;
const roMask = 0o440;
const execMask = 0o110;
const setgid = 0o2000;

async function requiresPermissionChange(dir: string, fsGroup: number, readOnly: boolean): Promise<boolean> {
  const st = await stat(dir).catch(() => undefined);
  if (!st) return true;
  if (st.gid !== fsGroup) return true;
  if (!st.isDirectory()) return true;
  const want = (readOnly ? roMask : rwMask) | execMask;
  return (st.mode & want) !== want || (st.mode & setgid) === 0;
}

/**
 * Gives a volume to the pod's fsGroup, as 1.23's `SetVolumeOwnership`: every file and directory
 * under `dir` (depth first, symlinks not followed) gets group `fsGroup` and gains `rw-rw----`
 * (`r--r-----` when `readOnly`); directories also gain `--x--x---` and setgid, so new files inherit
 * the group. With `fsGroupChangePolicy: OnRootMismatch` nothing changes when `dir` already has
 * that group and those bits. Symlinks are re-grouped, never chmod-ed. A failing chown/chmod of one
 * entry is reported to `log` and the walk goes on (as the kubelet); mutates the file system only.
 * @throws Error (Node's fs error) when a directory cannot be read.
 * @see pkg/volume/volume_linux.go (SetVolumeOwnership) in kubernetes/kubernetes v1.23
 */
export async function setVolumeOwnership(dir: string, fsGroup: number | undefined, opts: { readOnly: boolean; fsGroupChangePolicy?: string | undefined; log?: (message: string) => void }): Promise<void> {
  if (fsGroup === undefined) return;
  if (opts.fsGroupChangePolicy === "OnRootMismatch" && !(await requiresPermissionChange(dir, fsGroup, opts.readOnly))) {
    opts.log?.(`skipping permission and ownership change for volume ${dir}`);
    return;
  }
  const mask = opts.readOnly ? roMask : rwMask;
  const change = async (path: string): Promise<void> => {
    const st = await lstat(path);
    if (st.isDirectory()) {
      for (const name of await readdir(path)) await change(join(path, name));
    }
    await lchown(path, -1, fsGroup).catch((err: unknown) => opts.log?.(`lchown failed for ${path}: ${err instanceof Error ? err.message : String(err)}`));
    if (st.isSymbolicLink()) return;
    const bits = st.isDirectory() ? mask | setgid | execMask : mask;
    await chmod(path, (st.mode & 0o7777) | bits).catch((err: unknown) => opts.log?.(`chmod failed for ${path}: ${err instanceof Error ? err.message : String(err)}`));
  };
  await change(dir);
}

/**
 * Whether the node agent gives an inline CSI volume to the pod's fsGroup, as 1.23's
 * `csiMountMgr.supportsFSGroup` for inline volumes: an fsGroup is set, the volume is not
 * read-only, and the CSIDriver's `fsGroupPolicy` is `File`, or `ReadWriteOnceWithFSType` (the
 * default, also without a CSIDriver object) with an `fsType`. Pure.
 * @see pkg/volume/csi/csi_mounter.go in kubernetes/kubernetes v1.23
 */
export function csiSupportsFSGroup(fsGroup: number | undefined, fsGroupPolicy: string | undefined, readOnly: boolean, fsType: string): boolean {
  if (fsGroup === undefined || fsGroupPolicy === "None" || readOnly) return false;
  if (fsGroupPolicy === "File") return true;
  return fsType !== "";
}
