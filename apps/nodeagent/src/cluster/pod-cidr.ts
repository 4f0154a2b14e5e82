/**
 * The pod CIDR hand-off to the container runtime: the Node's `spec.podCIDRs` (from `--pod-cidr` at
 * registration, or set later by the controller manager) reach the CRI runtime through
 * `UpdateRuntimeConfig`, so its network plugin allocates pod IPs from them.
 *
 * @see pkg/kubelet/kubelet_network.go (`updatePodCIDR`), pkg/kubelet/kubelet_node_status.go (`tryUpdateNodeStatus`) in kubernetes/kubernetes v1.23
 */
import type { Node } from "@skiff/api-types";
import type { RuntimeClient } from "@skiff/cri-api";

/**
 * Sends the Node's pod CIDRs (comma-joined, as 1.23 joins `spec.podCIDRs`) to the runtime when
 * they differ from `current` (what was last sent; `""` at start). Resolves with the value now in
 * effect: unchanged when the Node has none or they did not change, the new one after a successful
 * call. A failed call is logged (`Error updating pod CIDR`) and the old value kept, so the next
 * call retries.
 */
export async function updateRuntimePodCIDR(
  runtime: Pick<RuntimeClient, "updateRuntimeConfig">,
  node: Pick<Node, "spec">,
  current: string,
  log: (message: string) => void,
): Promise<string> {
  const cidrs = node.spec?.podCIDRs?.length ? node.spec.podCIDRs : node.spec?.podCIDR ? [node.spec.podCIDR] : [];
  const cidr = cidrs.join(",");
  if (cidr === "" || cidr === current) return current;
  try {
    await runtime.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr: cidr } } });
  } catch (err) {
    log(`Error updating pod CIDR: failed to update pod CIDR: ${err instanceof Error ? err.message : String(err)}`);
    return current;
  }
  log(`Updating Pod CIDR originalPodCIDR="${current}" newPodCIDR="${cidr}"`);
  return cidr;
}
