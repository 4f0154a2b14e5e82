/**
 * `/spec/`: a cAdvisor `MachineInfo`-shaped description of this machine, read from `node:os`,
 * `/proc` and `/sys`. Values that cannot be read are reported empty (0, `""`, `[]`), never invented.
 * @see vendor/github.com/google/cadvisor/info/v1/machine.go (MachineInfo) in kubernetes/kubernetes v1.23
 */
import { cpus, networkInterfaces, totalmem } from "node:os";
import { readFile, statfs } from "node:fs/promises";

/** One file system (cAdvisor `FsInfo`). */
export interface FsInfo {
  readonly device: string;
  readonly capacity: number;
  readonly type: string;
  readonly inodes: number;
  readonly has_inodes: boolean;
}

/** One network device (cAdvisor `NetInfo`). */
export interface NetInfo {
  readonly name: string;
  readonly mac_address: string;
  readonly speed: number;
  readonly mtu: number;
}

/** The subset of cAdvisor's `MachineInfo` the agent can report honestly. Sizes in bytes. */
export interface MachineInfo {
  readonly timestamp: string;
  readonly num_cores: number;
  readonly num_physical_cores: number;
  readonly num_sockets: number;
  readonly cpu_frequency_khz: number;
  readonly memory_capacity: number;
  readonly machine_id: string;
  readonly system_uuid: string;
  readonly boot_id: string;
  readonly filesystems: readonly FsInfo[];
  readonly network_devices: readonly NetInfo[];
  readonly cloud_provider: string;
  readonly instance_type: string;
  readonly instance_id: string;
}

async function readTrimmed(path: string): Promise<string> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    return "";
  }
}

async function readNumber(path: string): Promise<number> {
  const n = Number.parseInt(await readTrimmed(path), 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function countTopology(cpuinfo: string): { physicalCores: number; sockets: number } {
  const sockets = new Set<string>();
  const cores = new Set<string>();
  let physical = "";
  for (const line of cpuinfo.split("\n")) {
    const [rawKey, rawValue] = line.split(":", 2);
    const key = (rawKey ?? "").trim();
    const value = (rawValue ?? "").trim();
    if (key === "physical id") {
      physical = value;
      sockets.add(value);
    } else if (key === "core id") {
      cores.add(`${physical}/${value}`);
    }
  }
  return { physicalCores: cores.size, sockets: sockets.size };
}

async function rootFilesystem(): Promise<FsInfo[]> {
  try {
    const st = await statfs("/");
    const mounts = await readTrimmed("/proc/mounts");
    let device = "";
    let type = "";
    for (const line of mounts.split("\n")) {
      const fields = line.split(" ");
      if (fields[1] === "/") {
        device = fields[0] ?? "";
        type = fields[2] ?? "";
      }
    }
    return [{ device, capacity: st.bsize * st.blocks, type: type === "" ? "vfs" : type, inodes: st.files, has_inodes: st.files > 0 }];
  } catch {
    return [];
  }
}

async function networkDevices(): Promise<NetInfo[]> {
  const out: NetInfo[] = [];
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    const mac = addrs?.[0]?.mac ?? "";
    if (addrs?.[0]?.internal === true) continue;
    out.push({ name, mac_address: mac, speed: await readNumber(`/sys/class/net/${name}/speed`), mtu: await readNumber(`/sys/class/net/${name}/mtu`) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Reads the machine description; never throws (unreadable values are empty). */
export async function readMachineInfo(now = new Date()): Promise<MachineInfo> {
  const cpuList = cpus();
  const cpuinfo = await readTrimmed("/proc/cpuinfo");
  const topology = countTopology(cpuinfo);
  const maxFreqKHz = await readNumber("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  const machineId = (await readTrimmed("/etc/machine-id")) || (await readTrimmed("/var/lib/dbus/machine-id"));
  return {
    timestamp: now.toISOString(),
    num_cores: cpuList.length,
    num_physical_cores: topology.physicalCores,
    num_sockets: topology.sockets,
    cpu_frequency_khz: maxFreqKHz > 0 ? maxFreqKHz : (cpuList[0]?.speed ?? 0) * 1000,
    memory_capacity: totalmem(),
    machine_id: machineId,
    system_uuid: (await readTrimmed("/sys/class/dmi/id/product_uuid")).toLowerCase(),
    boot_id: await readTrimmed("/proc/sys/kernel/random/boot_id"),
    filesystems: await rootFilesystem(),
    network_devices: await networkDevices(),
    cloud_provider: "Unknown",
    instance_type: "Unknown",
    instance_id: "None",
  };
}
