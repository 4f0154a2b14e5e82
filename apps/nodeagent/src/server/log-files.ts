/**
 * `/logs/`: a read-only file server over the log directory (default `/var/log`), as the kubelet's
 * `http.FileServer(http.Dir("/var/log/"))`: directories are listed as Go lists them (`<pre>` of links,
 * sub-directories with a trailing `/`), files are streamed. Nothing outside the directory is served:
 * `..` segments are refused (400), and a symbolic link whose target lies outside is answered 404.
 * @see pkg/kubelet/kubelet.go (ServeLogs) in kubernetes/kubernetes v1.23
 */
import { createReadStream } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import type { Readable } from "node:stream";

/** How to answer one `/logs/<relative>` request. */
export type LogFileAnswer =
  | { readonly kind: "listing"; readonly html: string }
  | { readonly kind: "file"; readonly stream: Readable; readonly sizeBytes: number }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "notFound" }
  | { readonly kind: "badRequest"; readonly message: string };

function escapeHTML(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;").replace(/'/g, "&#39;");
}

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * Resolves `relative` (the decoded path after `/logs/`, possibly empty) under `logDir`.
 * Never throws; unreadable entries are `notFound`.
 */
export async function resolveLogPath(logDir: string, relative: string): Promise<LogFileAnswer> {
  const segments = relative.split("/");
  if (relative.includes("\0") || segments.some((s) => s === ".." || s.includes("\\"))) return { kind: "badRequest", message: "invalid URL path" };
  const trailingSlash = relative === "" || relative.endsWith("/");
  const clean = segments.filter((s) => s !== "" && s !== ".");
  let root: string;
  let target: string;
  try {
    root = await realpath(logDir);
    target = await realpath(join(root, ...clean));
  } catch {
    return { kind: "notFound" };
  }
  if (!isInside(root, target)) return { kind: "notFound" };
  let info;
  try {
    info = await stat(target);
  } catch {
    return { kind: "notFound" };
  }
  const base = clean[clean.length - 1] ?? "";
  if (info.isDirectory()) {
    if (!trailingSlash) return { kind: "redirect", location: `${encodeURIComponent(base)}/` };
    let entries;
    try {
      entries = await readdir(target, { withFileTypes: true });
    } catch {
      return { kind: "notFound" };
    }
    const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const links = names.map((n) => `<a href="${escapeHTML(encodeURI(n).replace(/\?/g, "%3F").replace(/#/g, "%23"))}">${escapeHTML(n)}</a>\n`).join("");
    return { kind: "listing", html: `<pre>\n${links}</pre>\n` };
  }
  if (!info.isFile()) return { kind: "notFound" };
  if (trailingSlash) return { kind: "redirect", location: `../${encodeURIComponent(base)}` };
  return { kind: "file", stream: createReadStream(target), sizeBytes: info.size };
}
