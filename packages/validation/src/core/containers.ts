/**
 * Containers and init containers.
 *
 * @see pkg/apis/core/validation/validation.go `validateContainers`, `validateInitContainers`
 */
import { isValidPortName, isValidPortNum, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { nameIsDNSLabel } from "../meta/names.js";
import { field, isNegativeErrorMsg } from "../meta/internal/field.js";
import { arr, isRecord, num, str } from "../meta/internal/values.js";
import { validateEnv, validateEnvFrom } from "./env.js";
import {
  items,
  type ContainerPortView,
  type ContainerView,
  type HandlerView,
  type HTTPGetView,
  type ProbeView,
  type VolumeMountView,
  type VolumeView,
} from "./internal-types.js";
import type { PodValidationOptions } from "./options.js";
import { validateLocalDescendingPath, validatePathNoBacksteps } from "./paths.js";
import { validateResourceRequirements } from "./resources.js";
import { validateSecurityContext } from "./security.js";

const portProtocols = ["SCTP", "TCP", "UDP"];
const pullPolicies = ["Always", "IfNotPresent", "Never"];
const httpHeaderNameFmt = "[-A-Za-z0-9]+";
const httpHeaderNameRe = /^[-A-Za-z0-9]+$/;

function validatePortNumOrName(port: unknown, path: FieldPath): FieldError[] {
  if (typeof port === "number") return isValidPortNum(port).map((msg) => field.invalid(path, port, msg));
  if (typeof port === "string") return isValidPortName(port).map((msg) => field.invalid(path, port, msg));
  return [field.internal(path, new Error(`unknown type: ${port === undefined ? "<nil>" : typeof port}`))];
}

function validateHTTPGet(http: HTTPGetView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (str(http.path) === "") errs.push(field.required(path.child("path")));
  errs.push(...validatePortNumOrName(http.port, path.child("port")));
  const schemes = ["HTTP", "HTTPS"];
  if (!schemes.includes(str(http.scheme))) errs.push(field.notSupported(path.child("scheme"), http.scheme ?? "", schemes));
  for (const header of items<{ name?: string }>(http.httpHeaders)) {
    const name = str(header.name);
    if (!httpHeaderNameRe.test(name)) {
      errs.push(
        field.invalid(
          path.child("httpHeaders"),
          name,
          `a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '${httpHeaderNameFmt}')`,
        ),
      );
    }
  }
  return errs;
}

/** Exactly one handler: exec (with a command), httpGet, tcpSocket, or (probes only) grpc. */
function validateHandler(handler: HandlerView, path: FieldPath, allowGRPC: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let numHandlers = 0;
  const kinds = allowGRPC ? (["exec", "httpGet", "tcpSocket", "grpc"] as const) : (["exec", "httpGet", "tcpSocket"] as const);
  for (const kind of kinds) {
    const h = handler[kind];
    if (!isRecord(h)) continue;
    if (numHandlers > 0) {
      errs.push(field.forbidden(path.child(kind), "may not specify more than 1 handler type"));
      continue;
    }
    numHandlers++;
    const p = path.child(kind);
    if (kind === "exec") {
      if (arr((h as { command?: unknown }).command).length === 0) errs.push(field.required(p.child("command")));
    } else if (kind === "httpGet") {
      errs.push(...validateHTTPGet(h as HTTPGetView, p));
    } else if (kind === "tcpSocket") {
      errs.push(...validatePortNumOrName((h as { port?: unknown }).port, p.child("port")));
    } else {
      errs.push(...validatePortNumOrName(num((h as { port?: unknown }).port) ?? 0, p.child("port")));
    }
  }
  if (numHandlers === 0) errs.push(field.required(path, "must specify a handler type"));
  return errs;
}

function validateProbe(probe: unknown, path: FieldPath): FieldError[] {
  if (!isRecord(probe)) return [];
  const p = probe as ProbeView;
  const errs = validateHandler(p, path, true);
  for (const key of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    const v = num(p[key]) ?? 0;
    if (v < 0) errs.push(field.invalid(path.child(key), v, isNegativeErrorMsg));
  }
  const tgps = num(p.terminationGracePeriodSeconds);
  if (tgps !== undefined && tgps <= 0) {
    errs.push(field.invalid(path.child("terminationGracePeriodSeconds"), tgps, "must be greater than 0"));
  }
  return errs;
}

function validateContainerPorts(ports: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  items<ContainerPortView>(ports).forEach((port, i) => {
    const p = path.index(i);
    const name = str(port.name);
    if (name !== "") {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const msg of msgs) errs.push(field.invalid(p.child("name"), name, msg));
      else if (names.has(name)) errs.push(field.duplicate(p.child("name"), name));
      else names.add(name);
    }
    const containerPort = num(port.containerPort) ?? 0;
    if (containerPort === 0) errs.push(field.required(p.child("containerPort")));
    else for (const msg of isValidPortNum(containerPort)) errs.push(field.invalid(p.child("containerPort"), containerPort, msg));
    const hostPort = num(port.hostPort) ?? 0;
    if (hostPort !== 0) for (const msg of isValidPortNum(hostPort)) errs.push(field.invalid(p.child("hostPort"), hostPort, msg));
    const protocol = str(port.protocol);
    if (protocol === "") errs.push(field.required(p.child("protocol")));
    else if (!portProtocols.includes(protocol)) errs.push(field.notSupported(p.child("protocol"), protocol, portProtocols));
  });
  return errs;
}

function validateVolumeMounts(
  c: ContainerView,
  devices: Map<string, string>,
  volumes: ReadonlyMap<string, VolumeView>,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  const devicePaths = new Set(devices.values());
  const privileged = isRecord(c.securityContext) && c.securityContext.privileged === true;
  items<VolumeMountView>(c.volumeMounts).forEach((m, i) => {
    const p = path.index(i);
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (name === "") errs.push(field.required(p.child("name")));
    if (!volumes.has(name)) errs.push(field.notFound(p.child("name"), name));
    if (mountPath === "") errs.push(field.required(p.child("mountPath")));
    if (mountPoints.has(mountPath)) errs.push(field.invalid(p.child("mountPath"), mountPath, "must be unique"));
    mountPoints.add(mountPath);
    if (devices.has(name)) errs.push(field.invalid(p.child("name"), name, "must not already exist in volumeDevices"));
    if (devicePaths.has(mountPath)) {
      errs.push(field.invalid(p.child("mountPath"), mountPath, "must not already exist as a path in volumeDevices"));
    }
    // Kubernetes reports sub-path errors without the mount's index (`volumeMounts.subPath`).
    const subPath = str(m.subPath);
    if (subPath !== "") errs.push(...validateLocalDescendingPath(subPath, path.child("subPath")));
    const subPathExpr = str(m.subPathExpr);
    if (subPathExpr !== "") {
      if (subPath !== "") {
        errs.push(field.invalid(p.child("subPathExpr"), subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      }
      errs.push(...validateLocalDescendingPath(subPathExpr, path.child("subPathExpr")));
    }
    if (m.mountPropagation !== undefined) {
      const mp = str(m.mountPropagation);
      const modes = ["Bidirectional", "HostToContainer", "None"];
      if (!modes.includes(mp)) errs.push(field.notSupported(path.child("mountPropagation"), m.mountPropagation, modes));
      if (mp === "Bidirectional" && !privileged) {
        errs.push(
          field.forbidden(path.child("mountPropagation"), "Bidirectional mount propagation is available only to privileged containers"),
        );
      }
    }
  });
  return errs;
}

function validateVolumeDevices(
  c: ContainerView,
  mounts: Map<string, string>,
  volumes: ReadonlyMap<string, VolumeView>,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const paths = new Set<string>();
  const mountPaths = new Set(mounts.values());
  items<{ name?: string; devicePath?: string }>(c.volumeDevices).forEach((d, i) => {
    const p = path.index(i);
    const name = str(d.name);
    const devicePath = str(d.devicePath);
    const vol = volumes.get(name);
    if (name === "") errs.push(field.required(p.child("name")));
    if (names.has(name)) errs.push(field.invalid(p.child("name"), name, "must be unique"));
    // 1.23's isMatchedDevice: a generic ephemeral volume is a claim too (fixed in 1.23).
    if (vol !== undefined && !isRecord(vol.persistentVolumeClaim) && !isRecord(vol.ephemeral)) {
      errs.push(field.invalid(p.child("name"), name, "can only use volume source type of PersistentVolumeClaim for block mode"));
    }
    if (vol === undefined) errs.push(field.notFound(p.child("name"), name));
    if (devicePath === "") errs.push(field.required(p.child("devicePath")));
    if (paths.has(devicePath)) errs.push(field.invalid(p.child("devicePath"), devicePath, "must be unique"));
    if (devicePath !== "" && validatePathNoBacksteps(devicePath, p).length > 0) {
      errs.push(field.invalid(p.child("devicePath"), devicePath, "can not contain backsteps ('..')"));
    } else {
      paths.add(devicePath);
    }
    if (mounts.has(name)) errs.push(field.invalid(p.child("name"), name, "must not already exist in volumeMounts"));
    if (mountPaths.has(devicePath)) {
      errs.push(field.invalid(p.child("devicePath"), devicePath, "must not already exist as a path in volumeMounts"));
    }
    if (name !== "") names.add(name);
  });
  return errs;
}

function checkHostPortConflicts(containers: readonly ContainerView[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    items<ContainerPortView>(c.ports).forEach((port, pi) => {
      const hostPort = num(port.hostPort) ?? 0;
      if (hostPort === 0) return;
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`;
      if (seen.has(key)) errs.push(field.duplicate(path.index(ci).child("ports").index(pi).child("hostPort"), key));
      else seen.add(key);
    });
  });
  return errs;
}

/**
 * Checks a list of containers (`containers` or `initContainers`): at least one (`Required value`),
 * names required, DNS-1123 labels and unique (`Duplicate value`), image required, probes and
 * lifecycle handlers, `terminationMessagePolicy` `File` or `FallbackToLogsOnError`, ports, env,
 * envFrom, volume mounts (names must be volumes: `Not found`), volume devices, `imagePullPolicy`,
 * resources, security context, and host ports unique (across all containers; per init container).
 *
 * @see pkg/apis/core/validation/validation.go `validateContainers`
 */
export function validateContainers(
  containers: unknown,
  isInit: boolean,
  volumes: ReadonlyMap<string, VolumeView>,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const list = items<ContainerView>(containers);
  if (list.length === 0) return [field.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = path.index(i);
    const name = str(c.name);
    if (name === "") errs.push(field.required(p.child("name")));
    else for (const msg of nameIsDNSLabel(name, false)) errs.push(field.invalid(p.child("name"), name, msg));
    if (names.has(name)) errs.push(field.duplicate(p.child("name"), name));
    else names.add(name);
    if (str(c.image) === "") errs.push(field.required(p.child("image")));
    if (isRecord(c.lifecycle)) {
      for (const hook of ["postStart", "preStop"] as const) {
        const h = c.lifecycle[hook];
        if (isRecord(h)) errs.push(...validateHandler(h, p.child("lifecycle", hook), false));
      }
    }
    errs.push(...validateProbe(c.livenessProbe, p.child("livenessProbe")));
    if (isRecord(c.readinessProbe) && c.readinessProbe.terminationGracePeriodSeconds !== undefined) {
      errs.push(
        field.invalid(
          p.child("readinessProbe", "terminationGracePeriodSeconds"),
          c.readinessProbe.terminationGracePeriodSeconds,
          "must not be set for readinessProbes",
        ),
      );
    }
    errs.push(...validateProbe(c.startupProbe, p.child("startupProbe")));
    if (isRecord(c.livenessProbe) && (num(c.livenessProbe.successThreshold) ?? 0) !== 1) {
      errs.push(field.invalid(p.child("livenessProbe", "successThreshold"), num(c.livenessProbe.successThreshold) ?? 0, "must be 1"));
    }
    if (isRecord(c.startupProbe) && (num(c.startupProbe.successThreshold) ?? 0) !== 1) {
      errs.push(field.invalid(p.child("startupProbe", "successThreshold"), num(c.startupProbe.successThreshold) ?? 0, "must be 1"));
    }
    const tmp = str(c.terminationMessagePolicy);
    if (tmp === "") {
      errs.push(field.required(p.child("terminationMessagePolicy"), "must be 'File' or 'FallbackToLogsOnError'"));
    } else if (tmp !== "File" && tmp !== "FallbackToLogsOnError") {
      errs.push(field.invalid(p.child("terminationMessagePolicy"), tmp, "must be 'File' or 'FallbackToLogsOnError'"));
    }
    errs.push(...validateProbe(c.readinessProbe, p.child("readinessProbe")));
    errs.push(...validateContainerPorts(c.ports, p.child("ports")));
    errs.push(...validateEnv(c.env, p.child("env"), opts));
    errs.push(...validateEnvFrom(c.envFrom, p.child("envFrom")));
    const mounts = new Map(items<VolumeMountView>(c.volumeMounts).map((m) => [str(m.name), str(m.mountPath)]));
    const devices = new Map(items<{ name?: string; devicePath?: string }>(c.volumeDevices).map((d) => [str(d.name), str(d.devicePath)]));
    errs.push(...validateVolumeMounts(c, devices, volumes, p.child("volumeMounts")));
    errs.push(...validateVolumeDevices(c, mounts, volumes, p.child("volumeDevices")));
    const pullPolicy = str(c.imagePullPolicy);
    if (pullPolicy === "") errs.push(field.required(p.child("imagePullPolicy")));
    else if (!pullPolicies.includes(pullPolicy)) errs.push(field.notSupported(p.child("imagePullPolicy"), pullPolicy, pullPolicies));
    errs.push(...validateResourceRequirements(isRecord(c.resources) ? c.resources : undefined, p.child("resources"), opts));
    errs.push(...validateSecurityContext(c.securityContext, p.child("securityContext"), opts));
  });
  if (isInit) {
    // Init containers run one at a time, so only ports within one of them can collide.
    for (const c of list) errs.push(...checkHostPortConflicts([c], path));
  } else {
    errs.push(...checkHostPortConflicts(list, path));
  }
  return errs;
}

/**
 * Checks `initContainers`: as containers (when any), names also unique against `containers`
 * (`Duplicate value`), and no `lifecycle`, `livenessProbe`, `readinessProbe` or `startupProbe`
 * (`Invalid value: ...: must not be set for init containers`).
 *
 * @see pkg/apis/core/validation/validation.go `validateInitContainers`
 */
export function validateInitContainers(
  initContainers: unknown,
  containers: unknown,
  volumes: ReadonlyMap<string, VolumeView>,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const list = items<ContainerView>(initContainers);
  const errs = list.length > 0 ? validateContainers(list, true, volumes, path, opts) : [];
  const names = new Set(items<ContainerView>(containers).map((c) => str(c.name)));
  list.forEach((c, i) => {
    const p = path.index(i);
    const name = str(c.name);
    if (names.has(name)) errs.push(field.duplicate(p.child("name"), name));
    if (name !== "") names.add(name);
    for (const key of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const) {
      if (c[key] !== undefined && c[key] !== null) errs.push(field.invalid(p.child(key), c[key], "must not be set for init containers"));
    }
  });
  return errs;
}

/**
 * Pod-only container rule (not applied to templates, for compatibility): the image may not have
 * leading or trailing whitespace.
 *
 * @see pkg/apis/core/validation/validation.go `validateContainersOnlyForPod`
 */
export function validateContainersOnlyForPod(containers: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  items<ContainerView>(containers).forEach((c, i) => {
    const image = str(c.image);
    if (image !== image.trim()) {
      errs.push(field.invalid(path.index(i).child("image"), image, "must not have leading or trailing whitespace"));
    }
  });
  return errs;
}

/**
 * The fields of `EphemeralContainerCommon` an ephemeral container may not set, in the struct's
 * field order (1.23's `allowedEphemeralContainerFields` lists the rest as allowed). A field is
 * set when it is not Go's zero value: present and not null (for `resources`, with `limits` or
 * `requests` present).
 */
const ephemeralContainerForbiddenFields = ["ports", "resources", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"] as const;

function isGoZero(key: (typeof ephemeralContainerForbiddenFields)[number], value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (key === "resources" && isRecord(value)) return Object.values(value).every((v) => v === undefined || v === null);
  return false;
}

/**
 * Checks `spec.ephemeralContainers` as 1.23's `validateEphemeralContainers`, with its field paths:
 * - `targetContainerName` must name a container, an init container or an earlier ephemeral
 *   container (1.23 checks it against the names seen so far; `Not found` at
 *   `<path>[i].targetContainerName`);
 * - a name is required (`Required value: ephemeralContainer requires a name` at `<path>[i]`; the
 *   entry's other checks are skipped);
 * - the container checks of {@link validateContainers} and the image-whitespace rule, reported
 *   under `<path>[i][0]` (1.23 validates each entry as a one-element container list);
 * - the name unique among containers, init containers and ephemeral containers (`Duplicate value`
 *   at `<path>[i].name`);
 * - `ports`, `resources`, probes and `lifecycle` `Forbidden: cannot be set for an Ephemeral
 *   Container` at `<path>[i].<field>`.
 * Does not mutate its inputs.
 *
 * @returns field errors; empty for an empty or absent list
 * @see pkg/apis/core/validation/validation.go `validateEphemeralContainers` (v1.23)
 */
export function validateEphemeralContainers(
  ephemeralContainers: unknown,
  containers: unknown,
  initContainers: unknown,
  volumes: ReadonlyMap<string, VolumeView>,
  path: FieldPath,
  opts: PodValidationOptions,
): FieldError[] {
  const list = items<ContainerView>(ephemeralContainers);
  const errs: FieldError[] = [];
  if (list.length === 0) return errs;
  const allNames = new Set([...items<ContainerView>(containers), ...items<ContainerView>(initContainers)].map((c) => str(c.name)));
  list.forEach((ec, i) => {
    const p = path.index(i);
    const target = str(ec["targetContainerName"]);
    if (target !== "" && !allNames.has(target)) errs.push(field.notFound(p.child("targetContainerName"), target));
    const name = str(ec.name);
    if (name === "") {
      errs.push(field.required(p, "ephemeralContainer requires a name"));
      return;
    }
    const { targetContainerName: _target, ...common } = ec;
    errs.push(...validateContainers([common], false, volumes, p, opts));
    errs.push(...validateContainersOnlyForPod([common], p));
    if (allNames.has(name)) errs.push(field.duplicate(p.child("name"), name));
    else allNames.add(name);
    for (const key of ephemeralContainerForbiddenFields) {
      if (!isGoZero(key, ec[key])) errs.push(field.forbidden(p.child(key), "cannot be set for an Ephemeral Container"));
    }
  });
  return errs;
}
