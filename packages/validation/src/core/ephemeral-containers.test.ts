/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import { formatFieldError, type FieldError } from "@skiff/apimachinery";
import type { Pod } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { setPodDefaults } from "./defaults.js";
import { defaultPodValidationOptions as opts } from "./options.js";
import { validatePodEphemeralContainersUpdate, validatePodUpdate } from "./pod.js";

type Obj = Record<string, any>;
const texts = (errs: FieldError[]) => errs.map(formatFieldError);

function stored(ephemeralContainers?: Obj[]): Pod {
  const p: Obj = {
    metadata: { name: "web", namespace: "default", uid: "u1", resourceVersion: "1" },
    spec: { containers: [{ name: "app", image: "busybox:1.36" }], initContainers: [{ name: "init", image: "busybox:1.36" }] },
  };
  if (ephemeralContainers) p["spec"].ephemeralContainers = ephemeralContainers;
  setPodDefaults(p as Pod);
  return p as Pod;
}

/** `old` with `ec` appended to its ephemeral containers, defaulted as the apiserver does. */
function withEphemeral(old: Pod, ...ec: Obj[]): Pod {
  const p = structuredClone(old) as Obj;
  p["spec"].ephemeralContainers = [...(p["spec"].ephemeralContainers ?? []), ...ec];
  setPodDefaults(p as Pod);
  return p as Pod;
}

const debugger1 = { name: "debugger-1", image: "busybox", command: ["sh"], stdin: true, tty: true };

describe("validatePodEphemeralContainersUpdate (1.23 ValidatePodEphemeralContainersUpdate)", () => {
  it("accepts a new ephemeral container, with or without a target", () => {
    expect(validatePodEphemeralContainersUpdate(withEphemeral(stored(), debugger1), stored(), opts)).toEqual([]);
    expect(validatePodEphemeralContainersUpdate(withEphemeral(stored(), { ...debugger1, targetContainerName: "app" }), stored(), opts)).toEqual([]);
    // Init containers are valid targets as well (1.23 collects both lists).
    expect(validatePodEphemeralContainersUpdate(withEphemeral(stored(), { ...debugger1, targetContainerName: "init" }), stored(), opts)).toEqual([]);
  });

  it.each([
    ["a target that is not a container", { ...debugger1, targetContainerName: "nope" }, ['spec.ephemeralContainers[0].targetContainerName: Not found: "nope"']],
    ["no name", { ...debugger1, name: "" }, ["spec.ephemeralContainers[0]: Required value: ephemeralContainer requires a name"]],
    ["the name of a container", { ...debugger1, name: "app" }, ['spec.ephemeralContainers[0].name: Duplicate value: "app"']],
    ["the name of an init container", { ...debugger1, name: "init" }, ['spec.ephemeralContainers[0].name: Duplicate value: "init"']],
    ["no image", { ...debugger1, image: "" }, ["spec.ephemeralContainers[0][0].image: Required value"]],
    ["an image with spaces", { ...debugger1, image: " busybox" }, ['spec.ephemeralContainers[0][0].image: Invalid value: " busybox": must not have leading or trailing whitespace']],
    ["an invalid name", { ...debugger1, name: "Debug" }, [expect.stringMatching(/^spec\.ephemeralContainers\[0\]\[0\]\.name: Invalid value: "Debug": a lowercase RFC 1123 label/)]],
    [
      "ports, resources, probes and lifecycle",
      {
        ...debugger1,
        ports: [{ containerPort: 80 }],
        resources: { limits: { cpu: "1" } },
        livenessProbe: { exec: { command: ["true"] } },
        readinessProbe: { exec: { command: ["true"] } },
        startupProbe: { exec: { command: ["true"] } },
        lifecycle: { preStop: { exec: { command: ["true"] } } },
      },
      [
        "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
        "spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container",
        "spec.ephemeralContainers[0].livenessProbe: Forbidden: cannot be set for an Ephemeral Container",
        "spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container",
        "spec.ephemeralContainers[0].startupProbe: Forbidden: cannot be set for an Ephemeral Container",
        "spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container",
      ],
    ],
  ])("refuses %s", (_name, ec, expected) => {
    const errs = validatePodEphemeralContainersUpdate(withEphemeral(stored(), ec), stored(), opts);
    expect(texts(errs)).toEqual(expected);
  });

  it("a target may be an earlier ephemeral container (1.23 checks against every name seen so far), not a later one", () => {
    const old = withEphemeral(stored(), debugger1);
    expect(validatePodEphemeralContainersUpdate(withEphemeral(old, { ...debugger1, name: "d2", targetContainerName: "debugger-1" }), old, opts)).toEqual([]);
    const errs = validatePodEphemeralContainersUpdate(withEphemeral(stored(), { ...debugger1, name: "d2", targetContainerName: "d3" }, { ...debugger1, name: "d3" }), stored(), opts);
    expect(texts(errs)).toEqual(['spec.ephemeralContainers[0].targetContainerName: Not found: "d3"']);
  });

  it("allows empty resources (Go's zero value) and the allowed fields", () => {
    const ec = { ...debugger1, resources: {}, env: [{ name: "A", value: "b" }], workingDir: "/", securityContext: { privileged: false } };
    expect(validatePodEphemeralContainersUpdate(withEphemeral(stored(), ec), stored(), opts)).toEqual([]);
  });

  it("names are unique among ephemeral containers", () => {
    const errs = validatePodEphemeralContainersUpdate(withEphemeral(stored(), debugger1, debugger1), stored(), opts);
    expect(texts(errs)).toEqual(['spec.ephemeralContainers[1].name: Duplicate value: "debugger-1"']);
  });

  it("existing ephemeral containers may not be removed or changed", () => {
    const old = withEphemeral(stored(), debugger1, { ...debugger1, name: "debugger-2" });
    const removed = structuredClone(old) as Obj;
    removed["spec"].ephemeralContainers = [removed["spec"].ephemeralContainers[1]];
    expect(texts(validatePodEphemeralContainersUpdate(removed as Pod, old, opts))).toEqual([
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger-1" may not be removed\n',
    ]);
    const changed = structuredClone(old) as Obj;
    changed["spec"].ephemeralContainers[0].image = "busybox:1.36";
    const errs = validatePodEphemeralContainersUpdate(changed as Pod, old, opts);
    expect(errs).toHaveLength(1);
    expect(errs[0]?.field).toBe("spec.ephemeralContainers");
    expect(errs[0]?.detail).toMatch(/^existing ephemeral containers "debugger-1" may not be changed\n/);
    // Order is not significant (patches do not keep it).
    const reordered = structuredClone(old) as Obj;
    reordered["spec"].ephemeralContainers.reverse();
    expect(validatePodEphemeralContainersUpdate(reordered as Pod, old, opts)).toEqual([]);
  });

  it("a regular pod update may not add ephemeral containers", () => {
    const errs = validatePodUpdate(withEphemeral(stored(), debugger1), stored(), opts);
    expect(errs).toHaveLength(1);
    expect(errs[0]?.field).toBe("spec");
    expect(errs[0]?.detail).toMatch(/^pod updates may not change fields other than `spec.containers\[\*\].image`/);
  });

  it("defaulting fills imagePullPolicy and termination message fields of ephemeral containers", () => {
    const p = withEphemeral(stored(), { name: "d", image: "busybox:1.36" }) as Obj;
    expect(p["spec"].ephemeralContainers[0]).toEqual({
      name: "d",
      image: "busybox:1.36",
      imagePullPolicy: "IfNotPresent",
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
    });
  });
});
