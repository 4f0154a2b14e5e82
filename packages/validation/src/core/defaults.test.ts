/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are JSON objects mutated freely per case */
import fc from "fast-check";
import type { Pod, PodSpec, PodTemplate, PodTemplateSpec } from "@skiff/api-types";
import { describe, expect, it } from "vitest";
import { imageTag, setPodDefaults, setPodSpecDefaults, setPodTemplateDefaults, setPodTemplateSpecDefaults } from "./defaults.js";
import { defaultPodValidationOptions as opts } from "./options.js";
import { validatePod, validatePodTemplate } from "./pod.js";

type Obj = Record<string, any>;

describe("imageTag", () => {
  it("finds the tag as ParseImageName does", () => {
    expect(imageTag("busybox")).toBe("latest");
    expect(imageTag("busybox:latest")).toBe("latest");
    expect(imageTag("busybox:1.36")).toBe("1.36");
    expect(imageTag("localhost:5000/team/app")).toBe("latest");
    expect(imageTag("registry.example.com:5000/app:v2")).toBe("v2");
    expect(imageTag(`app@sha256:${"a".repeat(64)}`)).toBe("");
    expect(imageTag(`app:latest@sha256:${"a".repeat(64)}`)).toBe("latest");
    expect(imageTag("Busybox")).toBe("");
    expect(imageTag("")).toBe("");
    expect(imageTag("app@notadigest")).toBe("");
  });
});

describe("setPodSpecDefaults", () => {
  it("fills the spec, container, probe and volume defaults", () => {
    const s: Obj = {
      hostNetwork: true,
      containers: [
        {
          name: "c",
          image: "busybox",
          ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 9000, protocol: "UDP" }],
          env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          livenessProbe: { httpGet: { port: 80 } },
          readinessProbe: { exec: { command: ["true"] }, periodSeconds: 3 },
          lifecycle: { preStop: { httpGet: { port: 80, path: "/stop" } } },
        },
      ],
      initContainers: [{ name: "i", image: "busybox:1.36", imagePullPolicy: "Never" }],
      volumes: [
        { name: "a" },
        { name: "b", secret: { secretName: "s" } },
        { name: "c", configMap: { name: "c", defaultMode: 0o600 } },
        { name: "d", hostPath: { path: "/x" } },
        { name: "e", downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } },
        { name: "f", projected: { sources: [{ serviceAccountToken: { path: "t" } }, { downwardAPI: { items: [{ path: "l", fieldRef: { fieldPath: "metadata.labels" } }] } }] } },
      ],
    };
    setPodSpecDefaults(s as PodSpec);
    expect(s).toMatchObject({
      dnsPolicy: "ClusterFirst",
      restartPolicy: "Always",
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: "default-scheduler",
    });
    expect(s["enableServiceLinks"]).toBeUndefined();
    const c = s["containers"][0];
    expect(c).toMatchObject({ imagePullPolicy: "Always", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" });
    expect(c.ports).toEqual([
      { containerPort: 80, hostPort: 80, protocol: "TCP" },
      { containerPort: 81, hostPort: 9000, protocol: "UDP" },
    ]);
    expect(c.env[0].valueFrom.fieldRef.apiVersion).toBe("v1");
    expect(c.livenessProbe).toEqual({
      httpGet: { port: 80, path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(c.readinessProbe.periodSeconds).toBe(3);
    expect(c.lifecycle.preStop.httpGet).toEqual({ port: 80, path: "/stop", scheme: "HTTP" });
    expect(s["initContainers"][0].imagePullPolicy).toBe("Never");
    const v = s["volumes"];
    expect(v[0]).toEqual({ name: "a", emptyDir: {} });
    expect(v[1].secret.defaultMode).toBe(420);
    expect(v[2].configMap.defaultMode).toBe(0o600);
    expect(v[3].hostPath.type).toBe("");
    expect(v[4].downwardAPI).toEqual({ defaultMode: 420, items: [{ path: "n", fieldRef: { fieldPath: "metadata.name", apiVersion: "v1" } }] });
    expect(v[5].projected.defaultMode).toBe(420);
    expect(v[5].projected.sources[0].serviceAccountToken.expirationSeconds).toBe(3600);
    expect(v[5].projected.sources[1].downwardAPI.items[0].fieldRef.apiVersion).toBe("v1");
  });

  it("uses IfNotPresent for tagged images and keeps explicit values", () => {
    const s: Obj = { containers: [{ name: "c", image: "busybox:1.36" }], restartPolicy: "Never", dnsPolicy: "Default", terminationGracePeriodSeconds: 0 };
    setPodSpecDefaults(s as PodSpec);
    expect(s["containers"][0].imagePullPolicy).toBe("IfNotPresent");
    expect(s).toMatchObject({ restartPolicy: "Never", dnsPolicy: "Default", terminationGracePeriodSeconds: 0 });
  });

  it("is idempotent and tolerates malformed input", () => {
    const s: Obj = { containers: [{ name: "c", image: "x" }], volumes: [{ name: "v" }] };
    setPodSpecDefaults(s as PodSpec);
    const once = structuredClone(s);
    setPodSpecDefaults(s as PodSpec);
    expect(s).toEqual(once);
    expect(() => setPodSpecDefaults({ containers: [null, 5], volumes: "x" } as unknown as PodSpec)).not.toThrow();
    expect(() => setPodSpecDefaults(null as unknown as PodSpec)).not.toThrow();
  });
});

describe("setPodDefaults", () => {
  it("adds the pod-only defaults: requests from limits, enableServiceLinks", () => {
    const p: Obj = {
      spec: {
        containers: [{ name: "c", image: "x", resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m" } } }],
        initContainers: [{ name: "i", image: "x", resources: { limits: { cpu: "2" } } }],
      },
    };
    setPodDefaults(p as Pod);
    expect(p["spec"].containers[0].resources.requests).toEqual({ cpu: "500m", memory: "1Gi" });
    expect(p["spec"].initContainers[0].resources.requests).toEqual({ cpu: "2" });
    expect(p["spec"].enableServiceLinks).toBe(true);
    const q: Obj = {};
    setPodDefaults(q as Pod);
    expect(q["spec"]).toMatchObject({ restartPolicy: "Always", enableServiceLinks: true });
  });

  it("makes a minimal pod valid", () => {
    const p = { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } } as Pod;
    expect(validatePod(p, opts).length).toBeGreaterThan(0);
    setPodDefaults(p);
    expect(validatePod(p, opts)).toEqual([]);
  });

  it("makes any well-formed pod skeleton valid (property)", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
    const image = fc.constantFrom("busybox", "busybox:1.36", "registry.example.com/app:v1", `app@sha256:${"b".repeat(64)}`);
    const container = fc.record(
      {
        image,
        ports: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 3 }),
        cpuMilli: fc.option(fc.integer({ min: 1, max: 4000 }), { nil: undefined }),
        probe: fc.boolean(),
      },
      { requiredKeys: ["image", "ports", "probe"] },
    );
    fc.assert(
      fc.property(
        name,
        fc.uniqueArray(name, { minLength: 1, maxLength: 4 }),
        fc.array(container, { minLength: 4, maxLength: 4 }),
        fc.constantFrom(undefined, "Always", "OnFailure", "Never"),
        fc.boolean(),
        (podName, names, containers, restartPolicy, hostNetwork) => {
          const spec: Obj = {
            hostNetwork,
            containers: names.map((n, i) => {
              const c = containers[i] as (typeof containers)[number];
              const out: Obj = { name: n, image: c.image };
              // Host ports must be unique across containers when hostNetwork copies them.
              if (!hostNetwork || i === 0) out["ports"] = c.ports.map((containerPort) => ({ containerPort }));
              if (c.cpuMilli !== undefined) out["resources"] = { limits: { cpu: `${c.cpuMilli}m` } };
              if (c.probe) out["readinessProbe"] = { tcpSocket: { port: 80 } };
              return out;
            }),
          };
          if (restartPolicy !== undefined) spec["restartPolicy"] = restartPolicy;
          const pod = { metadata: { name: podName, namespace: "default" }, spec } as Pod;
          setPodDefaults(pod);
          expect(validatePod(pod, opts)).toEqual([]);
        },
      ),
    );
  });
});

describe("template defaults", () => {
  it("defaults templates without the pod-only fields", () => {
    const t: Obj = { spec: { containers: [{ name: "c", image: "x", resources: { limits: { cpu: "1" } } }] } };
    setPodTemplateSpecDefaults(t as PodTemplateSpec);
    expect(t["spec"].restartPolicy).toBe("Always");
    expect(t["spec"].enableServiceLinks).toBeUndefined();
    expect(t["spec"].containers[0].resources.requests).toBeUndefined();
    const empty: Obj = {};
    setPodTemplateSpecDefaults(empty as PodTemplateSpec);
    expect(empty["spec"]).toMatchObject({ dnsPolicy: "ClusterFirst" });
  });

  it("makes a minimal PodTemplate valid", () => {
    const pt = { metadata: { name: "t", namespace: "default" }, template: { spec: { containers: [{ name: "c", image: "x" }] } } } as PodTemplate;
    setPodTemplateDefaults(pt);
    expect(validatePodTemplate(pt, opts)).toEqual([]);
    const bare: Obj = { metadata: { name: "t", namespace: "default" } };
    setPodTemplateDefaults(bare as PodTemplate);
    expect(bare["template"].spec.restartPolicy).toBe("Always");
  });
});
