/** An image reference split as the kubelet's `parsers.ParseImageName`. */
export interface ParsedImageName {
  /** The normalized repository to look credentials up for: `docker.io/library/busybox`, `registry.io:5000/ns/app`. */
  readonly repoToPull: string;
  /** The tag; `latest` when neither a tag nor a digest is given; `""` with a digest only. */
  readonly tag: string;
  /** `algorithm:hex`, or `""`. */
  readonly digest: string;
}

const alnum = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]*)";
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const domain = `${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?`;
const nameRe = new RegExp(`^(?:${domain}/)?${pathComponent}(?:/${pathComponent})*$`);
const tagRe = /^[\w][\w.-]{0,127}$/;
const digestRe = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}$/;
const identifierRe = /^[a-f0-9]{64}$/;

function parseNormalizedNamed(s: string): ParsedImageName {
  if (identifierRe.test(s)) throw new Error(`invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`);
  let rest = s;
  let digest = "";
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!digestRe.test(digest)) throw new Error("invalid reference format");
  }
  let tag = "";
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!tagRe.test(tag)) throw new Error("invalid reference format");
  }
  // splitDockerDomain
  let host = "docker.io";
  let remainder = rest;
  const slash = rest.indexOf("/");
  if (slash >= 0 && (/[.:]/.test(rest.slice(0, slash)) || rest.slice(0, slash) === "localhost")) {
    host = rest.slice(0, slash);
    remainder = rest.slice(slash + 1);
  }
  if (host === "index.docker.io") host = "docker.io";
  if (host === "docker.io" && !remainder.includes("/")) remainder = `library/${remainder}`;
  if (remainder !== remainder.toLowerCase()) throw new Error("invalid reference format: repository name must be lowercase");
  const name = `${host}/${remainder}`;
  if (!nameRe.test(name)) throw new Error("invalid reference format");
  if (name.length > 255) throw new Error("repository name must not be more than 255 characters");
  return { repoToPull: name, tag: tag === "" && digest === "" ? "latest" : tag, digest };
}

/**
 * Splits an image reference into its normalized repository, tag and digest (Docker's
 * `ParseNormalizedNamed`: `busybox` → `docker.io/library/busybox`, tag `latest`).
 * @throws Error `couldn't parse image reference "<image>": invalid reference format` (and
 *   distribution's other messages: `repository name must be lowercase`, 64-hex identifiers).
 * @see pkg/util/parsers/parsers.go (ParseImageName) in kubernetes/kubernetes v1.23
 */
export function parseImageName(image: string): ParsedImageName {
  try {
    return parseNormalizedNamed(image);
  } catch (err) {
    throw new Error(`couldn't parse image reference ${JSON.stringify(image)}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * `image` with `:latest` appended when it has neither tag nor digest (the name itself is not
 * qualified: `busybox` → `busybox:latest`), as the kubelet does before asking the runtime.
 * @throws Error `couldn't parse image reference "<image>": ...` (see {@link parseImageName}).
 * @see pkg/kubelet/images/image_manager.go (applyDefaultImageTag) in kubernetes/kubernetes v1.23
 */
export function applyDefaultImageTag(image: string): string {
  const parsed = parseImageName(image);
  const explicitTag = parsed.digest === "" && image.lastIndexOf(":") > image.lastIndexOf("/");
  return parsed.digest === "" && !explicitTag ? `${image}:latest` : image;
}
