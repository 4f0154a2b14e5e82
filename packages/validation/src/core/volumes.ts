/**
 * Pod volumes.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateVolumes`, `validateVolumeSource`
 */
import { isDNS1123Subdomain, type FieldError, type FieldPath } from "@skiff/apimachinery";
import { validateAnyLabelSelector, validateLabels } from "../meta/labels.js";
import { nameIsDNSLabel, nameIsDNSSubdomain } from "../meta/names.js";
import { validateAnnotations } from "../meta/objectmeta.js";
import { field, inclusiveRangeError } from "../meta/internal/field.js";
import { arr, isRecord, num, rec, str, strMap } from "../meta/internal/values.js";
import {
  items,
  view,
  type DownwardAPIFileView,
  type KeyToPathView,
  type MetaView,
  type ProjectionView,
  type PVCSpecView,
  type VolumeView,
} from "./internal-types.js";
import type { PodValidationOptions } from "./options.js";
import { validateLocalDescendingPath, validateLocalNonReservedPath, validatePathNoBacksteps } from "./paths.js";
import { parseQuantity, quantitySign } from "./quantity.js";
import { readQuantity, validateResourceQuantityValue } from "./resources.js";
import { validateObjectFieldSelector, validateContainerResourceFieldSelector } from "./env.js";

const fileModeErrorMsg = "must be a number between 0 and 0777 (octal), both inclusive";
const pdPartitionErrorMsg = inclusiveRangeError(1, 255);

/** Every volume source field of core/v1, in Kubernetes' checking order. */
const volumeSourceKeys = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
] as const;

/** Whether a volume names any source (defaulting adds `emptyDir: {}` when it names none). */
export function hasVolumeSource(v: VolumeView): boolean {
  return volumeSourceKeys.some((k) => v[k] !== undefined && v[k] !== null);
}

// Legacy in-tree sources: only their required fields are checked. The child path is Kubernetes'
// (it reports gcePersistentDisk errors under "persistentDisk").
const simpleSources: Partial<Record<(typeof volumeSourceKeys)[number], { path: string; required: string[] }>> = {
  gcePersistentDisk: { path: "persistentDisk", required: ["pdName"] },
  awsElasticBlockStore: { path: "awsElasticBlockStore", required: ["volumeID"] },
  iscsi: { path: "iscsi", required: ["targetPortal", "iqn"] },
  glusterfs: { path: "glusterfs", required: ["endpoints", "path"] },
  rbd: { path: "rbd", required: ["monitors", "image"] },
  cinder: { path: "cinder", required: ["volumeID"] },
  cephfs: { path: "cephfs", required: ["monitors"] },
  quobyte: { path: "quobyte", required: ["registry", "volume"] },
  flexVolume: { path: "flexVolume", required: ["driver"] },
  azureFile: { path: "azureFile", required: ["secretName", "shareName"] },
  vsphereVolume: { path: "vsphereVolume", required: ["volumePath"] },
  photonPersistentDisk: { path: "photonPersistentDisk", required: ["pdID"] },
  portworxVolume: { path: "portworxVolume", required: ["volumeID"] },
  azureDisk: { path: "azureDisk", required: ["diskName", "diskURI"] },
  storageos: { path: "storageos", required: ["volumeName"] },
  scaleIO: { path: "scaleIO", required: ["gateway", "system", "volumeName"] },
};

function validateMode(mode: unknown, path: FieldPath): FieldError[] {
  const m = num(mode);
  if (m === undefined) return [];
  return m > 0o777 || m < 0 ? [field.invalid(path, m, fileModeErrorMsg)] : [];
}

function validateKeyToPath(kp: KeyToPathView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (str(kp.key) === "") errs.push(field.required(path.child("key")));
  if (str(kp.path) === "") errs.push(field.required(path.child("path")));
  errs.push(...validateLocalNonReservedPath(str(kp.path), path.child("path")));
  errs.push(...validateMode(kp.mode, path.child("mode")));
  return errs;
}

const volumeDownwardAPIFieldPaths = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];

function validateDownwardAPIFile(file: DownwardAPIFileView, path: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (str(file.path) === "") errs.push(field.required(path.child("path")));
  errs.push(...validateLocalNonReservedPath(str(file.path), path.child("path")));
  if (isRecord(file.fieldRef)) {
    errs.push(...validateObjectFieldSelector(file.fieldRef, volumeDownwardAPIFieldPaths, path.child("fieldRef")));
    if (isRecord(file.resourceFieldRef)) {
      errs.push(field.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
    }
  } else if (isRecord(file.resourceFieldRef)) {
    errs.push(...validateContainerResourceFieldSelector(file.resourceFieldRef, path.child("resourceFieldRef"), true, opts));
  } else {
    errs.push(field.required(path, "one of fieldRef and resourceFieldRef is required"));
  }
  errs.push(...validateMode(file.mode, path.child("mode")));
  return errs;
}

function validateProjected(projected: NonNullable<VolumeView["projected"]>, path: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs = validateMode(projected.defaultMode, path.child("defaultMode"));
  const allPaths = new Set<string>();
  const addPath = (p: string, badValue: unknown): void => {
    if (p === "") return;
    if (allPaths.has(p)) errs.push(field.invalid(path, badValue, "conflicting duplicate paths"));
    allPaths.add(p);
  };
  items<ProjectionView>(projected.sources).forEach((source, i) => {
    let numSources = 0;
    const srcPath = path.child("sources").index(i);
    for (const kind of ["secret", "configMap"] as const) {
      const s = source[kind];
      if (!isRecord(s)) continue;
      numSources++;
      const projPath = srcPath.child(kind);
      if (str(s.name) === "") errs.push(field.required(projPath.child("name")));
      items<KeyToPathView>(s.items).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, projPath.child("items").index(j)));
        addPath(str(kp.path), str(s.name));
      });
    }
    if (isRecord(source.downwardAPI)) {
      numSources++;
      const projPath = srcPath.child("downwardAPI");
      for (const file of items<DownwardAPIFileView>(source.downwardAPI.items)) {
        errs.push(...validateDownwardAPIFile(file, projPath, opts));
        addPath(str(file.path), str(file.path));
      }
    }
    if (isRecord(source.serviceAccountToken)) {
      numSources++;
      const sat = source.serviceAccountToken;
      const projPath = srcPath.child("serviceAccountToken");
      const exp = num(sat.expirationSeconds) ?? 0;
      if (exp < 600) {
        errs.push(field.invalid(projPath.child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"));
      }
      if (exp > 2 ** 32) {
        errs.push(field.invalid(projPath.child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"));
      }
      // Kubernetes reports this one under the projected volume's own path.
      if (str(sat.path) === "") errs.push(field.required(path.child("path")));
    }
    if (numSources > 1) errs.push(field.forbidden(srcPath, "may not specify more than 1 volume type"));
  });
  return errs;
}

/**
 * Checks a CSI driver name: required, at most 63 characters (`Too long`), and a DNS-1123 subdomain
 * once lower-cased.
 *
 * @see pkg/apis/core/validation/validation.go `ValidateCSIDriverName`
 */
export function validateCSIDriverName(driver: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (driver === "") errs.push(field.required(path));
  if (driver.length > 63) errs.push(field.tooLong(path, 63));
  for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(field.invalid(path, driver, msg));
  return errs;
}

const supportedAccessModes = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"];

function validatePVCSpec(spec: PVCSpecView, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const modes = arr(spec.accessModes);
  if (modes.length === 0) errs.push(field.required(path.child("accessModes"), "at least 1 access mode is required"));
  if (spec.selector !== undefined) errs.push(...validateAnyLabelSelector(spec.selector, path.child("selector")));
  for (const mode of modes) {
    if (!supportedAccessModes.includes(str(mode))) errs.push(field.notSupported(path.child("accessModes"), mode, supportedAccessModes));
  }
  const storagePath = path.child("resources").key("storage");
  const requests = rec(rec(spec.resources)["requests"]);
  if (!("storage" in requests)) {
    errs.push(field.required(storagePath));
  } else {
    const { q, errs: qErrs } = readQuantity(requests["storage"], storagePath);
    errs.push(...qErrs);
    if (q !== undefined) {
      if (quantitySign(q) <= 0) errs.push(field.invalid(storagePath, q.text, "must be greater than zero"));
      else errs.push(...validateResourceQuantityValue("storage", requests["storage"], storagePath));
    }
  }
  const className = str(spec.storageClassName);
  if (className !== "") {
    for (const msg of nameIsDNSSubdomain(className, false)) errs.push(field.invalid(path.child("storageClassName"), className, msg));
  }
  if (spec.volumeMode !== undefined && spec.volumeMode !== "Block" && spec.volumeMode !== "Filesystem") {
    errs.push(field.notSupported(path.child("volumeMode"), spec.volumeMode, ["Block", "Filesystem"]));
  }
  if (isRecord(spec.dataSource)) {
    const ds = spec.dataSource;
    if (str(ds.name) === "") errs.push(field.required(path.child("dataSource", "name")));
    if (str(ds.kind) === "") errs.push(field.required(path.child("dataSource", "kind")));
    if (str(ds.apiGroup) === "" && ds.kind !== "PersistentVolumeClaim") {
      errs.push(field.invalid(path.child("dataSource"), str(ds.kind), ""));
    }
  }
  return errs;
}

function validateEphemeral(
  ephemeral: NonNullable<VolumeView["ephemeral"]>,
  path: FieldPath,
): FieldError[] {
  const template = ephemeral.volumeClaimTemplate;
  if (!isRecord(template)) return [field.required(path.child("volumeClaimTemplate"))];
  const tPath = path.child("volumeClaimTemplate");
  const metaPath = tPath.child("metadata");
  const meta = view<MetaView>(template.metadata);
  const errs = validateAnnotations(strMap(meta.annotations), metaPath.child("annotations"));
  errs.push(...validateLabels(strMap(meta.labels), metaPath.child("labels")));
  for (const key of Object.keys(meta)) {
    if (key !== "labels" && key !== "annotations" && meta[key] !== undefined && meta[key] !== null) {
      errs.push(field.forbidden(metaPath.child(key), "cannot be set for an ephemeral volume"));
    }
  }
  errs.push(...validatePVCSpec(view<PVCSpecView>(template.spec), tPath.child("spec")));
  return errs;
}

function validateVolumeSource(
  v: VolumeView,
  path: FieldPath,
  volName: string,
  podName: string,
  opts: PodValidationOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  let numVolumes = 0;
  for (const key of volumeSourceKeys) {
    const source = v[key];
    if (source === undefined || source === null) continue;
    if (numVolumes > 0) {
      errs.push(field.forbidden(path.child(key), "may not specify more than 1 volume type"));
      continue;
    }
    numVolumes++;
    const s = rec(source);
    const p = path.child(key);
    switch (key) {
      case "emptyDir": {
        if (s["sizeLimit"] !== undefined && s["sizeLimit"] !== null) {
          const q = parseQuantity(s["sizeLimit"]);
          if (q === undefined || quantitySign(q) < 0) {
            errs.push(field.forbidden(p.child("sizeLimit"), "SizeLimit field must be a valid resource quantity"));
          }
        }
        break;
      }
      case "hostPath": {
        const hostPath = str(s["path"]);
        if (hostPath === "") {
          errs.push(field.required(p.child("path")));
          break;
        }
        errs.push(...validatePathNoBacksteps(hostPath, p.child("path")));
        const types = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];
        if (s["type"] !== undefined && s["type"] !== null && !types.includes(str(s["type"]))) {
          errs.push(field.notSupported(p.child("type"), s["type"], types));
        }
        break;
      }
      case "gitRepo":
        if (str(s["repository"]) === "") errs.push(field.required(p.child("repository")));
        errs.push(...validateLocalDescendingPath(str(s["directory"]), p.child("directory")));
        break;
      case "secret":
      case "configMap": {
        const nameKey = key === "secret" ? "secretName" : "name";
        if (str(s[nameKey]) === "") errs.push(field.required(p.child(nameKey)));
        errs.push(...validateMode(s["defaultMode"], p.child("defaultMode")));
        items<KeyToPathView>(s["items"]).forEach((kp, i) => errs.push(...validateKeyToPath(kp, p.child("items").index(i))));
        break;
      }
      case "nfs":
        if (str(s["server"]) === "") errs.push(field.required(p.child("server")));
        if (str(s["path"]) === "") errs.push(field.required(p.child("path")));
        if (!str(s["path"]).startsWith("/")) errs.push(field.invalid(p.child("path"), str(s["path"]), "must be an absolute path"));
        break;
      case "persistentVolumeClaim":
        if (str(s["claimName"]) === "") errs.push(field.required(p.child("claimName")));
        break;
      case "downwardAPI":
        errs.push(...validateMode(s["defaultMode"], p.child("defaultMode")));
        for (const file of items<DownwardAPIFileView>(s["items"])) errs.push(...validateDownwardAPIFile(file, p, opts));
        break;
      case "projected":
        errs.push(...validateProjected(s, p, opts));
        break;
      case "csi": {
        errs.push(...validateCSIDriverName(str(s["driver"]), p.child("driver")));
        if (isRecord(s["nodePublishSecretRef"])) {
          const secretName = str(s["nodePublishSecretRef"]["name"]);
          if (secretName === "") errs.push(field.required(p.child("nodePublishSecretRef", "name")));
          // Kubernetes reports a malformed secret name at "csi.name".
          for (const msg of nameIsDNSSubdomain(secretName, false)) errs.push(field.invalid(p.child("name"), secretName, msg));
        }
        break;
      }
      case "ephemeral": {
        errs.push(...validateEphemeral(s, p));
        if (podName !== "" && volName !== "") {
          const pvcName = `${podName}-${volName}`;
          for (const msg of nameIsDNSSubdomain(pvcName, false)) {
            errs.push(field.invalid(path.child("name"), volName, `PVC name "${pvcName}": ${msg}`));
          }
        }
        break;
      }
      default: {
        const simple = simpleSources[key];
        if (simple === undefined) break;
        const sp = path.child(simple.path);
        for (const req of simple.required) {
          const value = s[req];
          if (value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)) {
            errs.push(field.required(sp.child(req)));
          }
        }
        if (key === "gcePersistentDisk" || key === "awsElasticBlockStore") {
          const partition = num(s["partition"]) ?? 0;
          if (partition < 0 || partition > 255) errs.push(field.invalid(sp.child("partition"), partition, pdPartitionErrorMsg));
        }
        if (key === "iscsi") {
          const lun = num(s["lun"]) ?? 0;
          if (lun < 0 || lun > 255) errs.push(field.invalid(sp.child("lun"), lun, inclusiveRangeError(0, 255)));
        }
      }
    }
  }
  if (numVolumes === 0) errs.push(field.required(path, "must specify a volume type"));
  return errs;
}

/**
 * Checks `spec.volumes`: names required, DNS-1123 labels and unique (`Duplicate value`); exactly one
 * source each (`Required value: must specify a volume type`, `Forbidden: may not specify more than
 * 1 volume type`); per source: hostPath path without `..`, secret/configMap names and items,
 * downward-API field paths, projected sources, CSI driver name, ephemeral `volumeClaimTemplate`
 * required with a valid claim spec, and so on. Returns the valid volumes by name (volume mounts
 * refer to them) and the errors. `podName` is the pod's name when known (ephemeral PVC names).
 *
 * @see pkg/apis/core/validation/validation.go `ValidateVolumes`
 */
export function validateVolumes(
  volumes: unknown,
  podName: string,
  path: FieldPath,
  opts: PodValidationOptions,
): { volumes: Map<string, VolumeView>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const valid = new Map<string, VolumeView>();
  const list = items<VolumeView>(volumes);
  const createdPVCs = new Set<string>();
  if (podName !== "") {
    for (const v of list) if (isRecord(v.ephemeral)) createdPVCs.add(`${podName}-${str(v.name)}`);
  }
  list.forEach((v, i) => {
    const p = path.index(i);
    const name = str(v.name);
    const el = validateVolumeSource(v, p, name, podName, opts);
    if (name === "") el.push(field.required(p.child("name")));
    else for (const msg of nameIsDNSLabel(name, false)) el.push(field.invalid(p.child("name"), name, msg));
    if (valid.has(name)) el.push(field.duplicate(p.child("name"), name));
    if (el.length === 0) valid.set(name, v);
    else errs.push(...el);
    if (isRecord(v.persistentVolumeClaim) && createdPVCs.has(str(v.persistentVolumeClaim.claimName))) {
      errs.push(
        field.invalid(
          p.child("persistentVolumeClaim", "claimName"),
          str(v.persistentVolumeClaim.claimName),
          "must not reference a PVC that gets created for an ephemeral volume",
        ),
      );
    }
  });
  return { volumes: valid, errs };
}
