import type { Pod } from "@skiff/api-types";
import { ConfigMirrorAnnotation } from "@skiff/api-types";
import type { Client, ResourceWatchEvent } from "@skiff/client";
import { describe, expect, it } from "vitest";
import type { PodRuntime } from "../pods/index.js";
import { ApiPodSource } from "./api-pod-source.js";

const pod = (name: string, rv: string, mirror = false): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: rv, ...(mirror ? { annotations: { [ConfigMirrorAnnotation]: "hash" } } : {}) },
  spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] },
});

/**
 * A pods client with one list (the given pods) and one watch fed by `send` (mock: the informer's
 * own list/watch protocol is tested against a real HTTP server in @skiff/client; this test is about
 * what the source does with the events).
 */
function fakePods(initial: Pod[]) {
  const queue: ResourceWatchEvent<Pod>[] = [];
  let wake: (() => void) | undefined;
  let stopped = false;
  const pods = {
    info: { plural: "pods" },
    async listAll() {
      return { apiVersion: "v1", kind: "PodList", metadata: { resourceVersion: "1" }, items: initial };
    },
    watch() {
      return {
        stop: () => {
          stopped = true;
          wake?.();
        },
        async *[Symbol.asyncIterator]() {
          while (!stopped) {
            const ev = queue.shift();
            if (ev) yield ev;
            else await new Promise<void>((r) => (wake = r));
          }
        },
      };
    },
  };
  return {
    client: { pods } as unknown as Client,
    /** Delivers watch events in one go (one task: the source coalesces them). */
    send(...events: ResourceWatchEvent<Pod>[]) {
      queue.push(...events);
      wake?.();
    },
  };
}

function fakeRuntime() {
  const pushes: string[][] = [];
  const runtime = {
    setApiPods: (pods: readonly Pod[]) => void pushes.push(pods.map((p) => p.metadata?.name ?? "")),
    onPodTerminated: () => () => undefined,
  } as unknown as PodRuntime;
  return { runtime, pushes };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe("ApiPodSource", () => {
  it("hands only regular pods to the runtime and says whether a mirror pod was among the changes (added, changed, deleted)", async () => {
    const api = fakePods([pod("a", "1"), pod("static-n1", "1", true)]);
    const { runtime, pushes } = fakeRuntime();
    const changes: boolean[] = [];
    const source = new ApiPodSource({ client: api.client, nodeName: "n1", runtime, log: () => undefined, onChange: (m) => changes.push(m) });
    await source.start();
    await tick();
    try {
      // the first list: a regular and a mirror pod, in one push
      expect(pushes).toEqual([["a"]]);
      expect(changes).toEqual([true]);
      expect(source.mirrorPods().map((p) => p.metadata?.name)).toEqual(["static-n1"]);

      /** The onChange calls caused by `events`. */
      const after = async (...events: ResourceWatchEvent<Pod>[]): Promise<boolean[]> => {
        const from = changes.length;
        api.send(...events);
        await tick();
        return changes.slice(from);
      };
      const regular = await after({ type: "MODIFIED", object: pod("a", "2") }, { type: "ADDED", object: pod("b", "3") });
      expect(pushes.at(-1)).toEqual(["a", "b"]);
      expect(regular.length).toBeGreaterThan(0);
      expect(regular.every((m) => !m)).toBe(true);

      // a mirror pod deleted (as a user deleting it with kubectl): the agent must recreate it now
      expect(await after({ type: "DELETED", object: pod("static-n1", "4", true) })).toEqual([true]);
      expect(source.mirrorPods()).toEqual([]);

      // a mirror pod added, then updated without its annotation: both count (the old object was a mirror pod)
      expect(await after({ type: "ADDED", object: pod("m2", "5", true) })).toEqual([true]);
      expect(await after({ type: "MODIFIED", object: pod("m2", "6") })).toEqual([true]);
      expect(await after({ type: "MODIFIED", object: pod("b", "7") })).toEqual([false]);
    } finally {
      source.stop();
    }
  });
});
