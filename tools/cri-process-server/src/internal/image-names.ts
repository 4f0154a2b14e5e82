// Docker-style image reference normalisation ("busybox" → "docker.io/library/busybox:latest"),
// as containerd's CRI plugin applies before it stores or looks up an image.

export interface ImageReference {
  /** Fully qualified: domain/path:tag or domain/path@digest. */
  normalized: string;
  /** domain/path without tag or digest. */
  repository: string;
  /** Set for tag references. */
  tag?: string;
  /** Set for digest references. */
  digest?: string;
}

const imageIdPattern = /^sha256:[0-9a-f]{64}$/;
const pathPattern = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const domainPattern = /^(?:localhost|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*)(?::\d+)?$/;
const tagPattern = /^\w[\w.-]{0,127}$/;
const digestPattern = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;

export function isImageId(ref: string): boolean {
  return imageIdPattern.test(ref);
}

export function parseImageReference(ref: string): { ok: true; value: ImageReference } | { ok: false; error: string } {
  const text = ref.trim();
  if (text === "") return { ok: false, error: "image reference is empty" };
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!digestPattern.test(digest)) return { ok: false, error: `invalid digest in image reference ${JSON.stringify(ref)}` };
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!tagPattern.test(tag)) return { ok: false, error: `invalid tag in image reference ${JSON.stringify(ref)}` };
  }
  let domain = "docker.io";
  let path = rest;
  const slash = rest.indexOf("/");
  const first = slash >= 0 ? rest.slice(0, slash) : "";
  if (slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost")) {
    domain = first;
    path = rest.slice(slash + 1);
    if (!domainPattern.test(domain)) return { ok: false, error: `invalid registry in image reference ${JSON.stringify(ref)}` };
  } else if (slash < 0) {
    path = `library/${rest}`;
  }
  if (!pathPattern.test(path)) {
    return { ok: false, error: `invalid repository name in image reference ${JSON.stringify(ref)} (lowercase letters, digits and separators only)` };
  }
  const repository = `${domain}/${path}`;
  if (digest !== undefined) {
    // A digest pins the content; a tag next to it is ignored, as by containerd.
    return { ok: true, value: { normalized: `${repository}@${digest}`, repository, digest } };
  }
  const finalTag = tag ?? "latest";
  return { ok: true, value: { normalized: `${repository}:${finalTag}`, repository, tag: finalTag } };
}

export interface ImageDefaults {
  entrypoint: string[];
  cmd: string[];
}

// What an image would run when the container config sets no command: Entrypoint and Cmd of the
// images tests and simulated fleets use. Other images need an explicit command.
const imageDefaults: Record<string, ImageDefaults> = {
  "docker.io/library/busybox": { entrypoint: [], cmd: ["sh"] },
  "k8s.gcr.io/pause": { entrypoint: ["sleep"], cmd: ["2147483647"] },
  "registry.k8s.io/pause": { entrypoint: ["sleep"], cmd: ["2147483647"] },
};

export function defaultsForRepository(repository: string): ImageDefaults {
  return imageDefaults[repository] ?? { entrypoint: [], cmd: [] };
}

// Docker's rule: command replaces Entrypoint, args replaces Cmd, and Cmd is dropped once an
// entrypoint is given by the container.
export function resolveArgv(command: string[], args: string[], defaults: ImageDefaults): string[] {
  if (command.length > 0) return [...command, ...args];
  return [...defaults.entrypoint, ...(args.length > 0 ? args : defaults.cmd)];
}
