/**
 * `GET /api/v1/namespaces/{namespace}/pods/{name}/log`: validates the PodLogOptions, finds the
 * container and the pod's node, and streams the node agent's
 * `/containerLogs/{namespace}/{pod}/{container}` back (what `kubectl logs` reads).
 *
 * Credential towards the agent: a client certificate signed by the apiserver's own CA (generated
 * once into `--cert-dir` as `apiserver-nodeagent-client.{crt,key}`, subject
 * `CN=skiff-apiserver-nodeagent-client, O=system:masters`); agents that trust that CA
 * (`--client-ca-file=<cert-dir>/ca.crt`) authenticate it, and with webhook authorization their
 * SubjectAccessReview allows `system:masters`. Without a CA key (user-supplied serving
 * certificate) no certificate is presented and the agent must allow anonymous requests. As in
 * 1.23 without `--kubelet-certificate-authority`, the agent's serving certificate is not verified.
 *
 * @see pkg/registry/core/pod/rest/log.go (LogREST.Get) in kubernetes/kubernetes v1.23
 * @see pkg/registry/core/pod/strategy.go (LogLocation) in kubernetes/kubernetes v1.23
 * @see pkg/apis/core/validation/validation.go (ValidatePodLogOptions)
 * @see staging/src/k8s.io/apiserver/pkg/registry/generic/rest/response_checker.go (GenericHttpResponseChecker)
 */
import { readFile, writeFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { GenericStore, convertQueryBool, convertQueryInt64, firstQueryValues, parseQueryValues } from "@skiff/apiserver-core";
import type { NonResourceRoute, ResourceStrategy } from "@skiff/apiserver-core";
import type { FieldError } from "@skiff/apimachinery";
import { errorToStatus, forbidden, invalid, newBadRequest, newGenericServerResponse, newInternalError, newInvalid, newNotFound } from "@skiff/apimachinery";
import type { Storage } from "@skiff/storage";
import { generate } from "selfsigned";

/** A PEM client certificate and key the apiserver presents to node agents. */
export interface NodeAgentClientCertificate {
  readonly cert: string;
  readonly key: string;
}

/** File names of the client certificate inside `--cert-dir`. */
export const nodeAgentClientCertFileNames = Object.freeze({ cert: "apiserver-nodeagent-client.crt", key: "apiserver-nodeagent-client.key" });

/**
 * Loads (or creates once, signed by `<certDir>/ca.crt` + `ca.key`) the client certificate the
 * apiserver presents to node agents. Resolves `undefined` when the CA key is not there (the
 * serving certificate was supplied by the user). Never throws for missing files.
 */
export async function loadOrCreateNodeAgentClientCertificate(certDir: string): Promise<NodeAgentClientCertificate | undefined> {
  if (certDir === "") return undefined;
  const certPath = join(certDir, nodeAgentClientCertFileNames.cert);
  const keyPath = join(certDir, nodeAgentClientCertFileNames.key);
  const [cert0, key0] = await Promise.all([readFile(certPath, "utf8").catch(() => undefined), readFile(keyPath, "utf8").catch(() => undefined)]);
  if (cert0 !== undefined && key0 !== undefined) return { cert: cert0, key: key0 };
  const [caCert, caKey] = await Promise.all([readFile(join(certDir, "ca.crt"), "utf8").catch(() => undefined), readFile(join(certDir, "ca.key"), "utf8").catch(() => undefined)]);
  if (caCert === undefined || caKey === undefined) return undefined;
  const now = new Date();
  const pair = await generate(
    [
      { name: "commonName", value: "skiff-apiserver-nodeagent-client" },
      { name: "organizationName", value: "system:masters" },
    ],
    {
      keySize: 2048,
      algorithm: "sha256",
      notBeforeDate: now,
      notAfterDate: new Date(now.getTime() + 365 * 24 * 3600 * 1000),
      ca: { key: caKey, cert: caCert },
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
        { name: "extKeyUsage", clientAuth: true },
      ],
    },
  );
  await writeFile(keyPath, pair.private, { mode: 0o600 });
  await writeFile(certPath, pair.cert);
  return { cert: pair.cert, key: pair.private };
}

/** The PodLogOptions of one request. */
export interface PodLogOptions {
  readonly container: string;
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly sinceSeconds?: number;
  readonly sinceTime?: string;
  readonly limitBytes?: number;
}

const podLogKind = { group: "", kind: "PodLogOptions" };

/**
 * Parses and validates the query of a `pods/log` request (the first value of each parameter):
 * `follow`/`previous`/`timestamps` as every query boolean (false only for `0`/`false`), the int64s
 * with `strconv.ParseInt`'s errors, then 1.23's ValidatePodLogOptions.
 * @throws StatusError 400 BadRequest for an undecodable value; 422 Invalid (kind PodLogOptions)
 *   for `tailLines` < 0, `limitBytes` < 1, `sinceSeconds` < 1, or both `sinceSeconds` and `sinceTime`.
 */
export function parsePodLogOptions(name: string, query: Readonly<Record<string, string | undefined>>): PodLogOptions {
  const tailLines = convertQueryInt64(query["tailLines"]);
  const sinceSeconds = convertQueryInt64(query["sinceSeconds"]);
  const limitBytes = convertQueryInt64(query["limitBytes"]);
  const sinceTime = query["sinceTime"] || undefined;
  if (sinceTime !== undefined && Number.isNaN(Date.parse(sinceTime))) throw newBadRequest(`sinceTime: invalid RFC3339 time ${JSON.stringify(sinceTime)}`);
  const errs: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0) errs.push(invalid("tailLines", tailLines, "must be greater than or equal to 0"));
  if (limitBytes !== undefined && limitBytes < 1) errs.push(invalid("limitBytes", limitBytes, "must be greater than 0"));
  if (sinceSeconds !== undefined && sinceTime !== undefined) errs.push(forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  else if (sinceSeconds !== undefined && sinceSeconds < 1) errs.push(invalid("sinceSeconds", sinceSeconds, "must be greater than 0"));
  if (errs.length > 0) throw newInvalid(podLogKind, name, errs);
  return {
    container: query["container"] ?? "",
    follow: convertQueryBool(query["follow"]) === true,
    previous: convertQueryBool(query["previous"]) === true,
    timestamps: convertQueryBool(query["timestamps"]) === true,
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...(sinceSeconds !== undefined ? { sinceSeconds } : {}),
    ...(sinceTime !== undefined ? { sinceTime } : {}),
    ...(limitBytes !== undefined ? { limitBytes } : {}),
  };
}

/** The fields of a stored Pod the node-agent proxies read. */
export interface PodView {
  metadata?: { name?: string; namespace?: string };
  spec?: { nodeName?: string; containers?: { name: string }[]; initContainers?: { name: string }[]; ephemeralContainers?: { name: string }[] };
}

/** The fields of a stored Node the node-agent proxies read. */
export interface NodeView {
  status?: { addresses?: { type: string; address: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
}

/**
 * The container a log request reads: the one named (a container, init container or ephemeral
 * container), else the pod's only container.
 * @throws StatusError 400 as 1.23: `a container name must be specified for pod <name>[, choose one of: [a b]][ or one of the init containers: [i]]`, `container <c> is not valid for pod <name>`.
 */
export function resolveLogContainer(pod: PodView, name: string, container: string): string {
  const containers = pod.spec?.containers ?? [];
  const inits = pod.spec?.initContainers ?? [];
  if (container === "") {
    if (containers.length === 1) return containers[0]?.name ?? "";
    if (containers.length === 0) throw newBadRequest(`a container name must be specified for pod ${name}`);
    let msg = `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(" ")}]`;
    if (inits.length > 0) msg += ` or one of the init containers: [${inits.map((c) => c.name).join(" ")}]`;
    throw newBadRequest(msg);
  }
  // podHasContainerWithName visits every container, ephemeral ones included.
  if (![...containers, ...inits, ...(pod.spec?.ephemeralContainers ?? [])].some((c) => c.name === container)) throw newBadRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/**
 * Address types tried in order for the node's host. 1.23's default puts `Hostname` first; the
 * node agent's Hostname is its node name, which need not resolve, so `InternalIP` comes first.
 */
export const nodeAgentPreferredAddressTypes: readonly string[] = Object.freeze(["InternalIP", "Hostname", "InternalDNS", "ExternalDNS", "ExternalIP"]);

/** The agent's port when the Node reports none (the kubelet's default). */
export const defaultNodeAgentPort = 10250;

/**
 * `https://host:port` of a node's agent: the first address of a preferred type and
 * `status.daemonEndpoints.kubeletEndpoint.Port` (10250 when unset). Pure.
 * @throws StatusError 500 when the node has no usable address.
 * @see pkg/kubelet/client/kubelet_client.go (NodeConnectionInfoGetter.GetConnectionInfo) in kubernetes/kubernetes v1.23
 */
export function nodeAgentLocation(nodeName: string, node: NodeView): { host: string; port: number } {
  const addresses = node.status?.addresses ?? [];
  let host: string | undefined;
  for (const t of nodeAgentPreferredAddressTypes) {
    host = addresses.find((a) => a.type === t && a.address !== "")?.address;
    if (host !== undefined) break;
  }
  if (host === undefined) throw newInternalError(new Error(`no preferred addresses found; known addresses: [] for node ${nodeName}`));
  const p = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  return { host, port: p > 0 ? p : defaultNodeAgentPort };
}

/** The `/containerLogs/...` path and query the agent is asked for. Pure. */
export function containerLogsPath(namespace: string, pod: string, container: string, o: PodLogOptions): string {
  const q = new URLSearchParams();
  if (o.follow) q.set("follow", "true");
  if (o.previous) q.set("previous", "true");
  if (o.timestamps) q.set("timestamps", "true");
  if (o.sinceSeconds !== undefined) q.set("sinceSeconds", String(o.sinceSeconds));
  if (o.sinceTime !== undefined) q.set("sinceTime", o.sinceTime);
  if (o.tailLines !== undefined) q.set("tailLines", String(o.tailLines));
  if (o.limitBytes !== undefined) q.set("limitBytes", String(o.limitBytes));
  const qs = q.toString();
  const seg = encodeURIComponent;
  return `/containerLogs/${seg(namespace)}/${seg(pod)}/${seg(container)}${qs ? `?${qs}` : ""}`;
}

/** What {@link podLogRoutes} reads. */
export interface PodLogProxyConfig {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Storage;
  /** Presented to node agents; absent: none (the agent must allow anonymous). */
  readonly clientCertificate?: NodeAgentClientCertificate;
  /** Timeout of the connection to the agent, in ms. @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
}

const maxErrorBodyBytes = 50_000;

function readLimited(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    res.on("data", (d: Buffer) => {
      if (text.length < maxErrorBodyBytes) text += d.toString("utf8");
    });
    res.on("end", () => resolve(text.slice(0, maxErrorBodyBytes)));
    res.on("error", () => resolve(text));
  });
}

/**
 * The pod and node stores the node-agent proxies read (`pods/log`, `pods/exec|attach|portforward`,
 * `metrics.k8s.io`), over the served core strategies.
 * @throws Error when `strategies` has no core `pods` or `nodes` strategy (a wiring bug).
 */
export function podAndNodeStores(strategies: readonly ResourceStrategy[], storage: Storage): { pods: GenericStore; nodes: GenericStore } {
  const strategyOf = (plural: string): ResourceStrategy => {
    const s = strategies.find((x) => x.resource.group === "" && x.resource.plural === plural);
    if (!s) throw new Error(`no strategy for ${plural}`);
    return s;
  };
  return { pods: new GenericStore(strategyOf("pods"), storage), nodes: new GenericStore(strategyOf("nodes"), storage) };
}

/**
 * The `pods/log` route (to pass in `extraRoutes`; it runs behind the server's authentication and
 * authorization as `get pods/log`). Errors: 404 for a missing pod or node, 400/422 for the
 * options and the container (see {@link parsePodLogOptions}, {@link resolveLogContainer}), an
 * unbound pod gives an empty 200 (1.23's LogLocation has no location then); the agent's own
 * errors are passed on as 1.23's response checker does (400 → BadRequest with the agent's text,
 * 500 → InternalError, others a generic server response). 2xx bodies are streamed as they come
 * (`follow` included) and the agent connection is closed when the client goes away.
 * @example
 * createAPIServer({ ..., extraRoutes: [...podLogRoutes({ strategies, storage, clientCertificate })] });
 */
export function podLogRoutes(config: PodLogProxyConfig): NonResourceRoute[] {
  const { pods, nodes } = podAndNodeStores(config.strategies, config.storage);
  const handler: NonResourceRoute["handler"] = async (req, reply) => {
    const params = req.params as { namespace: string; name: string };
    // The first value of each parameter, booleans and int64s converted as 1.23's PodLogOptions conversion.
    const query = firstQueryValues(parseQueryValues(req.url.split("?", 2)[1] ?? ""));
    try {
      const opts = parsePodLogOptions(params.name, query);
      const pod = (await config.storage.get(pods.key(params.namespace, params.name), { ignoreNotFound: true })) as PodView | null;
      if (!pod) throw newNotFound({ group: "", resource: "pods" }, params.name);
      const container = resolveLogContainer(pod, params.name, opts.container);
      const nodeName = pod.spec?.nodeName ?? "";
      if (nodeName === "") return await reply.code(200).header("content-type", "text/plain").send("");
      const node = (await config.storage.get(nodes.key(undefined, nodeName), { ignoreNotFound: true })) as NodeView | null;
      if (!node) throw newNotFound({ group: "", resource: "nodes" }, nodeName);
      const { host, port } = nodeAgentLocation(nodeName, node);
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const r = httpsRequest(
          {
            host,
            port,
            method: "GET",
            path: containerLogsPath(params.namespace, params.name, container, opts),
            rejectUnauthorized: false,
            timeout: config.connectTimeoutMs ?? 30_000,
            ...(config.clientCertificate ? { cert: config.clientCertificate.cert, key: config.clientCertificate.key } : {}),
          },
          resolve,
        );
        r.on("timeout", () => r.destroy(new Error(`dial tcp ${host}:${port}: i/o timeout`)));
        r.on("error", reject);
        reply.raw.once("close", () => r.destroy());
        r.end();
      }).catch((e: unknown) => {
        throw newInternalError(e);
      });
      const code = res.statusCode ?? 500;
      if (code < 200 || code > 206) {
        const body = await readLimited(res);
        if (code === 500) throw newInternalError(new Error(body));
        if (code === 400) throw newBadRequest(body);
        throw newGenericServerResponse(code, "", { group: "", resource: "pods/log" }, params.name, body, 0, false);
      }
      res.socket.setTimeout(0);
      reply.raw.once("close", () => res.destroy());
      return await reply.code(200).header("content-type", "text/plain").send(res);
    } catch (e) {
      const s = errorToStatus(e);
      return reply.code(s.code).header("content-type", "application/json").send(JSON.stringify(s));
    }
  };
  return [{ method: "GET", url: "/api/v1/namespaces/:namespace/pods/:name/log", handler }];
}
